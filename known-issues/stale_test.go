package knownissues_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	version "github.com/hashicorp/go-version"

	"github.com/rwdiag/rwdiag/analyze"
	knownissues "github.com/rwdiag/rwdiag/known-issues"
)

// RepoEnv names a clone of github.com/risingwavelabs/risingwave (bare or
// with a work tree, with its release tags) for TestSourceTextNotStale.
const RepoEnv = "RWDIAG_RISINGWAVE_REPO"

var releaseTagRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// Every entry's source_text occurs in RisingWave's source at the tag it
// names, and one of them at least at the newest release tag in the entry's
// range (an entry may list the message of each era), so that its signature
// is still what RisingWave prints; an entry whose text is gone says
// stale: true. See docs/known-issues.md.
func TestSourceTextNotStale(t *testing.T) {
	repo := os.Getenv(RepoEnv)
	if repo == "" {
		t.Skipf("set %s to a clone of https://github.com/risingwavelabs/risingwave with its tags "+
			"(git clone --bare; git fetch --tags) to check that every entry's source_text still occurs "+
			"in RisingWave's source: %s=/path/to/risingwave.git go test ./known-issues -run Stale", RepoEnv, RepoEnv)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("%s is set but git is not on PATH", RepoEnv)
	}
	out, err := git(repo, "tag", "-l", "v*")
	if err != nil {
		t.Fatalf("%s=%s: %v", RepoEnv, repo, err)
	}
	var tags []*version.Version
	have := map[string]bool{}
	for _, tag := range strings.Fields(out) {
		have[tag] = true
		if releaseTagRE.MatchString(tag) {
			if v, err := version.NewVersion(tag); err == nil {
				tags = append(tags, v)
			}
		}
	}
	if len(tags) == 0 {
		t.Fatalf("%s=%s has no release tags (vX.Y.Z): git fetch --tags", RepoEnv, repo)
	}
	known, err := analyze.LoadFS(knownissues.FS, knownissues.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range known {
		k := r.Known
		// The newest release tag the entry claims to affect.
		var newest *version.Version
		for _, v := range tags {
			if r.AppliesTo(v.Original()) && (newest == nil || v.GreaterThan(newest)) {
				newest = v
			}
		}
		var missing []string
		for _, st := range k.SourceText {
			if !have[st.At] {
				t.Errorf("%s:%d: %s: tag %s is not in %s (git fetch --tags)", r.File, st.Line, r.ID, st.At, repo)
				continue
			}
			checked++
			found, where, err := occurs(repo, st.At, st)
			if err != nil {
				t.Errorf("%s:%d: %s: %v", r.File, st.Line, r.ID, err)
			} else if !found {
				missing = append(missing, fmt.Sprintf("%s:%d: %q is not in %s at %s", r.File, st.Line, st.Text, where, st.At))
			}
		}
		// At the newest tag in the range, one of the texts at least (an
		// entry may list the message of each era) must still be there.
		if newest != nil {
			tag, any := newest.Original(), false
			for _, st := range k.SourceText {
				checked++
				if found, _, err := occurs(repo, tag, st); err == nil && found {
					any = true
					break
				}
			}
			if !any {
				missing = append(missing, fmt.Sprintf("%s: none of the source texts is in the source at %s, the newest tag in affects %q", r.File, tag, k.Affects))
			}
		}
		switch {
		case len(missing) > 0 && !k.Stale:
			t.Errorf("%s: the signature's text is gone (fix the entry, or say stale: true):\n  %s", r.ID, strings.Join(missing, "\n  "))
		case len(missing) > 0:
			t.Logf("%s: stale, as it says:\n  %s", r.ID, strings.Join(missing, "\n  "))
		case k.Stale:
			t.Errorf("%s: says stale: true but every source_text occurs: remove stale", r.ID)
		}
	}
	t.Logf("%d entries, %d texts checked at their tags", len(known), checked)
}

// occurs says whether st's text is in the source at tag: in its path when it
// names one, else anywhere under src/.
func occurs(repo, tag string, st analyze.SourceText) (found bool, where string, err error) {
	if st.Path != "" {
		out, err := git(repo, "show", tag+":"+st.Path)
		if err != nil {
			return false, st.Path, nil // the file is gone: so is the text
		}
		return strings.Contains(out, st.Text), st.Path, nil
	}
	cmd := exec.Command("git", "-C", repo, "grep", "-q", "-F", "-e", st.Text, tag, "--", "src/")
	err = cmd.Run()
	if e, ok := err.(*exec.ExitError); ok && e.ExitCode() == 1 {
		return false, "src/", nil
	}
	return err == nil, "src/", err
}

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}
