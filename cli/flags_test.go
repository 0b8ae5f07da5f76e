package cli

import (
	"strings"
	"testing"
)

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"analyse", sample}, exitUsage, `unknown command "analyse" (did you mean analyze?)`},
		{[]string{"bundle", "inpsect", sample}, exitUsage, `bundle: unknown command "inpsect" (did you mean inspect?)`},
		{[]string{"rules", "lsit"}, exitUsage, `(did you mean list?)`},
		{[]string{"analyze", "--fromat", "json", sample}, exitUsage, "analyze: unknown flag --fromat (did you mean --format?)"},
		{[]string{"timeline", "--min-levle", "warn", sample}, exitUsage, "unknown flag --min-levle (did you mean --min-level?)"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"` + "\n"},
	} {
		r := run(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: want exit %d and %q\n%v", tc.args, tc.code, tc.want, r)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	want := run(t, "version")
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		if r := run(t, args...); r.code != exitOK || r.stdout != want.stdout || !strings.HasPrefix(r.stdout, "rwdiag ") {
			t.Errorf("%q: want what 'rwdiag version' prints\n%v", args, r)
		}
	}
}

// The global flags work after every command's name, and formats and
// severities are taken in any case.
func TestGlobalFlagsAndCase(t *testing.T) {
	for _, args := range [][]string{
		{"rules", "list", "--max-total-bytes", "1GiB"},
		{"rules", "lint", "--max-entry-bytes=1GiB"},
		{"version", "--max-zstd-window", "1GiB"},
		{"analyze", sample, "--max-total-bytes", "1GiB", "--format", "JSON", "--fail-on", "NEVER"},
		{"timeline", "--format", "Markdown", sample, "--max-entry-bytes", "1GiB"},
		{"diff", "--Fail-on", "never", sample, sample},
		{"bundle", "inspect", "--format", "JSON", sample},
		{"sql", "--format", "CSV", sample, "SELECT 1"},
	} {
		r := run(t, args...)
		if args[1] == "--Fail-on" {
			// Flag names keep their case, as kubectl's do.
			if r.code != exitUsage || !strings.Contains(r.stderr, "did you mean --fail-on?") {
				t.Errorf("%q: want a suggestion\n%v", args, r)
			}
			continue
		}
		if r.code != exitOK {
			t.Errorf("%q: want exit 0\n%v", args, r)
		}
	}
}

func TestWidthFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--width", "5", sample}, `--width "5": want a number of columns from 20 to 10000`},
		{[]string{"analyze", "--width", "120", "--wide", sample}, "give --width or --wide, not both"},
	} {
		if r := run(t, tc.args...); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: want exit 2 and %q\n%v", tc.args, tc.want, r)
		}
	}
}

// timeline and diff have no HTML form: -o x.html is refused, not a table
// in a .html file.
func TestNoHTMLTimeline(t *testing.T) {
	out := t.TempDir() + "/x.html"
	for _, args := range [][]string{{"timeline", "-o", out, sample}, {"timeline", "--format", "html", sample}, {"diff", "-o", out, sample, sample}} {
		if r := run(t, args...); r.code != exitUsage || !strings.Contains(r.stderr, "no HTML form here") {
			t.Errorf("%q: want exit 2 refusing HTML\n%v", args, r)
		}
	}
}

func TestCollectRefusesBeforeTheCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collect", "-n", "rw"}, "no kubeconfig found; looked at $KUBECONFIG (not set), "},
		{[]string{"collect", "-o", "b.zip"}, "-o b.zip: a bundle is written as tar.zst"},
		{[]string{"collect", "--since", "2h", "--since-time", "2026-11-29T20:00:00Z"}, "give --since or --since-time, not both"},
	} {
		if r := run(t, tc.args...); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "KUBERNETES_MASTER") {
			t.Errorf("%q: want exit 2 and %q\n%v", tc.args, tc.want, r)
		}
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if r := run(t, "completion", sh); r.code != exitOK || !strings.Contains(r.stdout, "rwdiag") {
			t.Errorf("completion %s:\n%v", sh, r)
		}
	}
	if r := run(t, "completion", "bsh"); r.code != exitUsage || !strings.Contains(r.stderr, "did you mean bash?") {
		t.Errorf("completion bsh:\n%v", r)
	}
	// The words the scripts ask for (--generate-bash-completion) come from
	// urfave/cli, which reads os.Args for them: not testable through Run.
}
