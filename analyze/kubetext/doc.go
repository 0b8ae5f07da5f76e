// Package kubetext reads the Kubernetes pod state that customers paste into
// a support bundle when kubernetes/pods.json is missing: `kubectl describe
// pod` output (ParseDescribe) and the `kubectl get pods` table
// (ParseGetPods). Sniff tells the two apart.
//
// The shapes are kubectl's own. Describe text is what describePod and the
// functions it calls in kubectl's pkg/describe/describe.go print through a
// tabwriter (padding 2) and a prefix writer (two spaces a level): "Key:"
// and value cells, containers at the second level, states and resources
// at the third, then the Events table. The pod table is what the API
// server's printPod (kubernetes pkg/printers/internalversion/printers.go)
// fills and cli-runtime's table printer aligns (padding 3). Older kubectl
// and servers differ in places the parsers accept: events "From" with the
// node after a comma (before 1.20), RESTARTS without "(<age> ago)" (servers
// before 1.22), "Terminating (expires <time>)" (1.9), ports without names
// and event messages without the container's field path (1.28 prints
// neither; 1.37 both).
//
// Pasted text is read as leniently as it can be without guessing: CRLF
// line ends, tabs, shell prompts, Markdown fences and a common indentation
// are tolerated; everything else that cannot be read becomes a Problem
// naming its line, and parsing goes on. Nothing panics on hostile input
// (see FuzzParse).
//
// PodListJSON turns what was parsed into the JSON `kubectl get pods -o
// json` prints, so that the analyzer's gjson paths over kubernetes/pods.json
// work unchanged; Pod.Line, Container.Line, State.Line and Event.Line (and
// ContainerLine) let evidence cite the text's file and line.
//
// kubetext imports only the standard library.
package kubetext
