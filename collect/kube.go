package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rwdiag/rwdiag/bundle"
)

// kubeClients are the clients of one run. Every request they make is a GET.
type kubeClients struct {
	config    *rest.Config
	clientset kubernetes.Interface // logs, proxy
	dynamic   dynamic.Interface    // lists, as kubectl sees them
	// describe has an HTTP timeout: the kubectl describers take no context.
	describe kubernetes.Interface
	// namespace is the namespace to collect from, resolved.
	namespace string
}

// userAgent identifies the collector in the API server's audit log.
func userAgent(version string) string {
	if version == "" {
		version = "devel"
	}
	return "rwdiag/" + version + " (collect; read-only)"
}

// newKubeClients loads the configuration the way kubectl does: --kubeconfig,
// else $KUBECONFIG, else ~/.kube/config, else the in-cluster service account;
// exec credential plugins and auth providers work as in kubectl.
func newKubeClients(o *Options) (*kubeClients, error) {
	cfg := o.RESTConfig
	ns := o.Namespace
	if cfg == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = o.Kubeconfig
		overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
		var err error
		if cfg, err = cc.ClientConfig(); err != nil {
			return nil, fmt.Errorf("kubernetes configuration: %w", err)
		}
		if ns == "" {
			if ns, _, err = cc.Namespace(); err != nil {
				return nil, fmt.Errorf("kubernetes configuration: namespace: %w", err)
			}
		}
	} else {
		cfg = rest.CopyConfig(cfg)
	}
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	cfg.UserAgent = userAgent(o.ToolVersion)
	// Gentle on an API server that may itself be struggling, but not so
	// slow that client-side throttling eats the run's deadline.
	cfg.QPS, cfg.Burst = 20, 40
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	dcfg := rest.CopyConfig(cfg)
	dcfg.Timeout = o.CallTimeout
	dcs, err := kubernetes.NewForConfig(dcfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &kubeClients{config: cfg, clientset: cs, dynamic: dyn, describe: dcs, namespace: ns}, nil
}

// A kubeResource is a resource listed into kubernetes/<file>.json.
type kubeResource struct {
	file string
	gvr  schema.GroupVersionResource
	// crd: absent on clusters without the operator, which is normal.
	crd bool
}

var (
	podsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

// namespacedResources are listed whole in the namespace. Secrets are never
// read, not even listed.
var namespacedResources = []kubeResource{
	{file: "events", gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}},
	{file: "statefulsets", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}},
	{file: "deployments", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	{file: "services", gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}},
	{file: "persistentvolumeclaims", gvr: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}},
	{file: "configmaps", gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
	{file: "risingwaves", gvr: schema.GroupVersionResource{Group: "risingwave.risingwavelabs.com", Version: "v1alpha1", Resource: "risingwaves"}, crd: true},
}

// discoverySelectors find RisingWave pods when --selector is not given: the
// component label of the operator (which the helm chart sets too), the helm
// chart's own, and the generic one of hand-written manifests, restricted to
// pods that call themselves risingwave. The union is kept.
var discoverySelectors = []string{
	"risingwave/component",
	"risingwave.risingwavelabs.com/component",
	"app.kubernetes.io/name=risingwave,app.kubernetes.io/component",
}

// resourceName is how kubectl names a resource: "statefulsets" or
// "risingwaves.risingwave.risingwavelabs.com".
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" || gvr.Group == "apps" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

// listAll lists a resource in pages of 500, as kubectl does.
func (c *collector) listAll(gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	var ri dynamic.ResourceInterface = c.kube.dynamic.Resource(gvr)
	if namespace != "" {
		ri = c.kube.dynamic.Resource(gvr).Namespace(namespace)
	}
	what := "list " + resourceName(gvr)
	if namespace != "" {
		what += " -n " + namespace
	}
	if selector != "" {
		what += " -l " + selector
	}
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{LabelSelector: selector, Limit: 500}
	for {
		var page *unstructured.UnstructuredList
		err := c.call(what, func(ctx context.Context) error {
			var err error
			page, err = ri.List(ctx, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return items, nil
		}
	}
}

// kubectlJSON renders objects as `kubectl get -o json` prints them: a List
// whose items carry their kind and apiVersion, keys sorted, indented by four
// spaces, managedFields left out (kubectl's --show-managed-fields=false).
func kubectlJSON(items []unstructured.Unstructured) ([]byte, error) {
	objs := make([]any, 0, len(items))
	for _, it := range items {
		obj := it.DeepCopy().Object
		unstructured.RemoveNestedField(obj, "metadata", "managedFields")
		objs = append(objs, obj)
	}
	list := map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items":      objs,
		"metadata":   map[string]any{"resourceVersion": ""},
	}
	data, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// writeKube writes objects as kubernetes/<file>.json, redacted.
// partial, when not nil, says what could not be included.
func (c *collector) writeKube(file, source string, items []unstructured.Unstructured, partial error) error {
	path := bundle.KubePath(file)
	data, err := kubectlJSON(items)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return c.writeData(path, source, data, redactJSON, partial)
}

func (c *collector) kubectlGet(resource string, namespaced bool, selector string) string {
	s := "kubectl get " + resource
	if namespaced {
		s += " -n " + c.kube.namespace
	}
	if selector != "" {
		s += " -l '" + selector + "'"
	}
	return s + " -o json"
}

// discoverPods lists the RisingWave pods: with --selector, those it selects;
// else the union of the discovery selectors, in the API server's order (as
// kubectl prints them).
func (c *collector) discoverPods() ([]unstructured.Unstructured, string, error) {
	selectors := discoverySelectors
	if c.opts.Selector != "" {
		selectors = []string{c.opts.Selector}
	}
	seen := map[string]bool{}
	var pods []unstructured.Unstructured
	var sources []string
	var errs []string
	for _, sel := range selectors {
		items, err := c.listAll(podsGVR, c.kube.namespace, sel)
		if err != nil {
			errs = append(errs, explain(err, "list", "pods"))
			continue
		}
		sources = append(sources, c.kubectlGet("pods", true, sel))
		for _, it := range items {
			if uid := string(it.GetUID()) + "/" + it.GetName(); !seen[uid] {
				seen[uid] = true
				pods = append(pods, it)
			}
		}
	}
	if len(errs) == len(selectors) {
		return nil, "", fmt.Errorf("%s", strings.Join(slices.Compact(errs), "; "))
	}
	return pods, strings.Join(sources, " + "), nil
}

// typedPods converts listed pods for the code that reads them.
func typedPods(items []unstructured.Unstructured) ([]*corev1.Pod, error) {
	pods := make([]*corev1.Pod, 0, len(items))
	for _, it := range items {
		var p corev1.Pod
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &p); err != nil {
			return nil, fmt.Errorf("pod %s: %w", it.GetName(), err)
		}
		pods = append(pods, &p)
	}
	return pods, nil
}

// collectResource lists one namespaced resource into its file.
func (c *collector) collectResource(r kubeResource) error {
	items, err := c.listAll(r.gvr, c.kube.namespace, "")
	if err != nil {
		if r.crd && apierrors.IsNotFound(err) {
			c.note("kubernetes/%s.json: the RisingWave custom resource is not installed (normal for a helm install)", r.file)
			return nil
		}
		return fmt.Errorf("%s", explain(err, "list", resourceName(r.gvr)))
	}
	if r.crd {
		c.recordCRVersion(items)
	}
	return c.writeKube(r.file, c.kubectlGet(resourceName(r.gvr), true, ""), items, nil)
}

// collectNodes gets the nodes the RisingWave pods run on: a ClusterRole
// with get on nodes suffices, and a big shared cluster's other nodes stay out
// of the bundle.
func (c *collector) collectNodes(pods []*corev1.Pod) error {
	var names []string
	for _, p := range pods {
		if p.Spec.NodeName != "" && !slices.Contains(names, p.Spec.NodeName) {
			names = append(names, p.Spec.NodeName)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		c.note("kubernetes/nodes.json: no pod is scheduled on a node")
		return nil
	}
	var items []unstructured.Unstructured
	var errs []string
	for _, name := range names {
		var node *unstructured.Unstructured
		err := c.call("get node "+name, func(ctx context.Context) error {
			var err error
			node, err = c.kube.dynamic.Resource(nodesGVR).Get(ctx, name, metav1.GetOptions{})
			return err
		})
		if err != nil {
			errs = append(errs, explain(err, "get", "nodes"))
			continue
		}
		items = append(items, *node)
	}
	if len(items) == 0 {
		return fmt.Errorf("%s", strings.Join(slices.Compact(errs), "; "))
	}
	var partial error
	if len(errs) > 0 {
		partial = fmt.Errorf("%d of %d nodes missing: %s", len(errs), len(names), strings.Join(errs, "; "))
	}
	return c.writeKube("nodes", "kubectl get nodes "+strings.Join(names, " ")+" -o json", items, partial)
}
