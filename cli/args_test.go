package cli

import (
	"strings"
	"testing"
)

func TestInterspersedFlags(t *testing.T) {
	app := newApp(nil, nil)
	for _, tc := range []struct{ in, want string }{
		{"rwdiag analyze B --format json", "rwdiag analyze --format json B"},
		{"rwdiag analyze B --format=json -o out.json", "rwdiag analyze --format=json -o out.json B"},
		{"rwdiag analyze --no-builtin B --rules r.yaml", "rwdiag analyze --no-builtin --rules r.yaml B"},
		{"rwdiag analyze B --no-builtin C", "rwdiag analyze --no-builtin B C"},
		{"rwdiag --max-total-bytes 1GiB bundle inspect B --format json", "rwdiag --max-total-bytes 1GiB bundle inspect --format json B"},
		{"rwdiag rules test dir --run oom", "rwdiag rules test --run oom dir"},
		{"rwdiag analyze B -- --format", "rwdiag analyze B -- --format"},
		{"rwdiag analyze B --help", "rwdiag analyze --help B"},
	} {
		got := strings.Join(interspersed(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("interspersed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAnalyzeFlagsAfterBundle(t *testing.T) {
	r := run(t, "analyze", sample, "--format", "json", "--fail-on", "never")
	if r.code != 0 || !strings.Contains(r.stdout, `"findings"`) {
		t.Fatalf("%s", r)
	}
}
