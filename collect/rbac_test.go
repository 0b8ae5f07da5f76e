package collect_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rwdiag/rwdiag/collect"
)

// rbacRule is a rule of docs/rbac.yaml.
type rbacRule struct {
	APIGroups []string `yaml:"apiGroups"`
	Resources []string `yaml:"resources"`
	Verbs     []string `yaml:"verbs"`
}

// docs/rbac.yaml grants every request a collection makes: a user bound to
// it is never refused.
func TestRBACCoversEveryRequest(t *testing.T) {
	var roles = map[string][]rbacRule{} // kind -> rules
	for _, doc := range strings.Split(string(readFile(t, "../docs/rbac.yaml")), "\n---\n") {
		var obj struct {
			Kind  string     `yaml:"kind"`
			Rules []rbacRule `yaml:"rules"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("docs/rbac.yaml: %v", err)
		}
		roles[obj.Kind] = append(roles[obj.Kind], obj.Rules...)
	}
	allows := func(kind, group, resource, verb string) bool {
		for _, r := range roles[kind] {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
				return true
			}
		}
		return false
	}

	api := newFakeAPI(t)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 1
	if _, err := collect.Run(context.Background(), opts, nil); err != nil {
		t.Fatal(err)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, r := range api.requests {
		p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		kind, group, resource, verb := "Role", "", "", "get"
		switch {
		case p[0] == "api" && p[2] == "nodes":
			kind, resource = "ClusterRole", "nodes"
		case p[0] == "api" && len(p) == 5:
			resource, verb = p[4], "list"
		case p[0] == "api" && len(p) == 6:
			resource = p[4]
		case p[0] == "api" && len(p) >= 7:
			resource = p[4] + "/" + p[6]
		case p[0] == "apis" && len(p) == 6:
			group, resource, verb = p[1], p[5], "list"
		default:
			t.Errorf("unexpected request %s", r.URL)
			continue
		}
		if !allows(kind, group, resource, verb) {
			t.Errorf("docs/rbac.yaml does not grant %s %q in group %q (%s): needed by %s", verb, resource, group, kind, r.URL.Path)
		}
	}
	if allows("Role", "", "secrets", "get") || allows("Role", "", "secrets", "list") {
		t.Error("docs/rbac.yaml grants access to secrets")
	}
}
