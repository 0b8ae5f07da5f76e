// Package cluster is the RisingWave cluster the collector's tests collect
// from: a sample bundle of this repository (samples/oom-crash-loop by
// default) created in a real kube-apiserver, and stand-ins for what cannot run
// here, served through the real protocols.
//
// Start creates, through the API server an admin rest.Config reaches:
//
//   - the RisingWave CRD (risingwaves.risingwave.risingwavelabs.com, v1alpha1,
//     in the operator's names: kind RisingWave, short name rw, categories all
//     and streaming, a status subresource; the schema is permissive,
//     x-kubernetes-preserve-unknown-fields) and the sample's RisingWave
//     resource, unless Options.WithoutCRD (a helm install; the CRD is then
//     deleted if an earlier fixture made it);
//   - the namespace, the ServiceAccounts the pods name, and the sample's
//     StatefulSets, Deployments, Services and pods (server fields stripped:
//     uid, resourceVersion, creationTimestamp, managedFields, generation;
//     ownerReferences pointed at the real owners' uids), their status set
//     through the status subresource as the sample has it: phase, restart
//     counts, lastState.terminated.reason OOMKilled; the pod IPs are
//     addresses of Addresses, the host IP 127.0.0.1;
//   - ConfigMaps with planted secrets (a risingwave.toml and env-like keys,
//     values of this package's own), a Secret the collector must never read,
//     the sample's core/v1 Events about the pods (involvedObject pointed at
//     the pods' new uids);
//   - a Node for every node the pods name, status.addresses InternalIP
//     127.0.0.1 and daemonEndpoints.kubeletEndpoint.Port the kubelet
//     stand-in's port.
//
// It serves:
//
//   - a kubelet stand-in over HTTPS (self-signed; the API server does not
//     verify the kubelet unless told to): GET
//     /containerLogs/{namespace}/{pod}/{container} with the query the API
//     server forwards (previous, timestamps, sinceSeconds, sinceTime,
//     tailLines, limitBytes), as pkg/kubelet/server/server.go of
//     k8s.io/kubernetes v1.37.2 routes it, from the sample's logs/ files; 404
//     for an unknown pod or container and 400 for a previous log that is not
//     there, with the kubelet's messages. Its clock is the sample's collection
//     time (manifest.json finished_at), so sinceSeconds selects from a sample
//     days old as it would have on the day. Every request is recorded;
//   - pod servers on each pod's IP (which the test's network namespace must
//     have on lo, see Addresses), reached through the API server's pod proxy:
//     /metrics on the port named metrics, one snapshot of the sample per
//     request in order (the last one again once they run out), and the meta
//     dashboard's /api/monitor/diagnose/ and /api/monitor/await_tree/ on the
//     port named dashboard (collect/diagnose.go);
//   - unless Options.NoSQL, a throwaway PostgreSQL (initdb as the postgres
//     user when root, a loopback port) holding the sample's sql/rw_*.csv
//     dumps as tables of schema rw_catalog (every column text, loaded with
//     psql's \copy), whose version() says RisingWave, for `rwdiag collect
//     --sql-dsn`.
//
// PlantedSecrets lists the values no byte of a bundle may hold; Expected
// says what a bundle of this cluster must hold, for the tests' assertions.
package cluster
