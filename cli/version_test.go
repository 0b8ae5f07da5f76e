package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	r := run(t, "version")
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "rwdiag ") ||
		lines[1] != fmt.Sprintf("go %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH) ||
		lines[2] != "bundle format 1" {
		t.Errorf("unexpected output\n%v", r)
	}
}

func TestResolveVersion(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tc := range []struct {
		name string
		set  string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"set with ldflags", "v1.2.3", vcs("0123456789abcdef0123", "true"), true, "v1.2.3"},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, true, "v0.4.0"},
		{"vcs revision", "", vcs("0123456789abcdef0123", "false"), true, "devel+0123456789ab"},
		{"vcs revision, modified", "", vcs("0123456789abcdef0123", "true"), true, "devel+0123456789ab-dirty"},
		{"short revision", "", vcs("abc", "false"), true, "devel+abc"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"no build info", "", nil, false, "devel"},
	} {
		if got := resolveVersion(tc.set, tc.info, tc.ok); got != tc.want {
			t.Errorf("%s: resolveVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}
