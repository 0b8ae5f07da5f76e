package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
)

func TestMarkdownHTML(t *testing.T) {
	for _, tt := range []struct {
		name, md, want string
	}{
		{"paragraphs", "Throttle it\nnow.\n\nThen wait.", "<p>Throttle it now.</p>\n<p>Then wait.</p>\n"},
		{"escaped", "a <script>alert(1)</script> & \"b\"", "<p>a &lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;b&#34;</p>\n"},
		{"inline", "Run `SELECT 1 < 2` **now**, see [the docs](https://docs.risingwave.com/x?a=1&b=2).",
			`<p>Run <code>SELECT 1 &lt; 2</code> <strong>now</strong>, see <a href="https://docs.risingwave.com/x?a=1&amp;b=2" rel="noopener noreferrer">the docs</a>.</p>` + "\n"},
		{"no script links", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"},
		{"fence", "Do:\n\n```sql\nSELECT '<b>' FROM t;\n```\n", "<p>Do:</p>\n<pre><code class=\"lang-sql\">SELECT &#39;&lt;b&gt;&#39; FROM t;</code></pre>\n"},
		{"bullets", "- one\n- two `x`\n\nafter", "<ul><li><p>one</p>\n</li><li><p>two <code>x</code></p>\n</li></ul>\n<p>after</p>\n"},
		{"numbered with code inside", "1. First:\n\n   ```sh\n   kubectl get pods\n   ```\n\n2. Second\n   goes on.\n",
			"<ol><li><p>First:</p>\n<pre><code class=\"lang-sh\">kubectl get pods</code></pre>\n</li><li><p>Second goes on.</p>\n</li></ol>\n"},
		{"numbered from 3", "3. third", "<ol start=\"3\"><li><p>third</p>\n</li></ol>\n"},
		{"heading", "## Why\ntext", "<h5>Why</h5>\n<p>text</p>\n"},
		{"unclosed fence", "```\ncode <x>", "<pre><code>code &lt;x&gt;</code></pre>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(markdownHTML(tt.md)); got != tt.want {
				t.Errorf("markdownHTML(%q)\n got %q\nwant %q", tt.md, got, tt.want)
			}
		})
	}
}

// Text from the bundle is escaped wherever it lands on the page.
func TestHTMLReportEscapesBundleText(t *testing.T) {
	evil := `</title><script>alert(1)</script><img src=x onerror=alert(2)>`
	rep := reportSample()
	rep.Bundle.Path = evil
	rep.Findings[0].Summary = evil
	rep.Findings[0].Subject = evil
	rep.Findings[0].Evidence[0].Text = evil
	rep.Findings[0].Remediation = evil + "\n\n```\n" + evil + "\n```\n"
	at := time.Date(2025, 3, 14, 9, 28, 41, 0, time.UTC)
	x := &analyze.Forensics{Timeline: &analyze.Timeline{Entries: []analyze.TimelineEntry{{Time: at, Source: analyze.SourceLog, Level: "WARN", Pod: evil, Path: evil, Text: evil}}},
		History: map[string]*analyze.MetricHistory{rep.Findings[0].Fingerprint: {Times: []time.Time{at, at.Add(time.Minute)},
			Signals: []analyze.SignalHistory{{Name: evil, PromQL: evil, Series: []analyze.SeriesHistory{{Series: evil, Labels: map[string]string{"pod": evil},
				Points: []analyze.MetricPoint{{T: at, V: 1}, {T: at.Add(time.Minute), V: 2}}}}}}}}}
	var b bytes.Buffer
	if err := WriteWith(&b, rep, FormatHTML, x); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<script", "<img"} {
		if i := strings.Index(strings.ToLower(out), bad); i >= 0 {
			t.Errorf("page holds %q unescaped: %s", bad, out[max(0, i-80):min(len(out), i+80)])
		}
	}
	if !strings.Contains(out, "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the bundle's text is not on the page, escaped")
	}
	checkSelfContained(t, out)
}

var (
	tagRE      = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>`)
	loadAttrRE = regexp.MustCompile(`(?i)\s(src|srcset|href|xlink:href|action|formaction|poster|data|background)\s*=`)
	styleRE    = regexp.MustCompile(`(?is)<style>(.*?)</style>`)
	quotedRE   = regexp.MustCompile(`"[^"]*"|'[^']*'`)
)

// checkSelfContained fails when a page could load anything: a tag that
// fetches (script, link, img, iframe, ...), an attribute that names a
// resource (links to read further excepted), CSS that imports or points at
// a url(). Text is not looked at: the bundle's is escaped.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`) {
		t.Error("page lacks its Content Security Policy")
	}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		switch name := strings.ToLower(m[1]); name {
		case "script", "link", "img", "image", "iframe", "frame", "object", "embed", "video", "audio", "source", "track", "use", "base", "form":
			t.Errorf("page has a <%s> tag: %.120s", name, m[0])
		case "a":
			continue // a link loads nothing until followed
		}
		attrs := quotedRE.ReplaceAllString(m[2], `""`)
		if a := loadAttrRE.FindString(attrs); a != "" {
			t.Errorf("tag %.120s has %q: it could load something", m[0], a)
		}
		if strings.Contains(strings.ToLower(m[2]), "url(") && strings.Contains(strings.ToLower(attrs), "style") {
			t.Errorf("tag %.120s has a url() style", m[0])
		}
	}
	for _, m := range styleRE.FindAllStringSubmatch(page, -1) {
		for _, bad := range []string{"url(", "@import", "@font-face"} {
			if strings.Contains(strings.ToLower(m[1]), bad) {
				t.Errorf("the style sheet has %s", bad)
			}
		}
	}
}

func TestChartLayout(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	times := []time.Time{t0, t0.Add(time.Minute), t0.Add(2 * time.Minute), t0.Add(3 * time.Minute)}
	h := &analyze.MetricHistory{Times: times, FirstHeld: times[2]}
	s := analyze.SignalHistory{Name: "rss", PromQL: "process_resident_memory_bytes", Series: []analyze.SeriesHistory{
		{Series: `{pod="a"}`, Labels: map[string]string{"pod": "a", "component": "compute"}, Points: []analyze.MetricPoint{{T: times[0], V: 1 << 30}, {T: times[1], V: 2 << 30}, {T: times[3], V: 7 << 30}}},
		{Series: `{pod="b"}`, Labels: map[string]string{"pod": "b", "component": "compute"}, Subject: true, Points: []analyze.MetricPoint{{T: times[0], V: 1 << 30}}},
	}}
	c := buildChart(h, s)
	if len(c.Lines) != 2 || c.Lines[0].Label != "pod=b" || !c.Lines[0].Subject || c.Lines[1].Label != "pod=a" {
		t.Fatalf("lines = %+v, want the subject's series first, labelled by what tells them apart", c.Lines)
	}
	if got := len(c.Lines[1].Points); got != 2 {
		t.Errorf("series a, absent at one evaluation, has %d runs, want 2", got)
	}
	if len(c.Lines[0].Dots) != 1 {
		t.Errorf("a one-point series has %d dots, want 1 so that it shows", len(c.Lines[0].Dots))
	}
	var ylabels, xlabels []string
	for _, tk := range c.YTicks {
		ylabels = append(ylabels, tk.Label)
	}
	for _, tk := range c.XTicks {
		xlabels = append(xlabels, tk.Label)
	}
	if got := strings.Join(ylabels, " "); got != "0 2 GiB 4 GiB 6 GiB 8 GiB" {
		t.Errorf("y labels %q", got)
	}
	if got := strings.Join(xlabels, " "); got != "20:00:00 20:01:00 20:02:00 20:03:00" {
		t.Errorf("x labels %q", got)
	}
	if c.Marker == nil || c.Marker.Pos <= c.XTicks[1].Pos || c.Marker.Pos >= c.XTicks[3].Pos {
		t.Errorf("marker %+v not at the third evaluation", c.Marker)
	}
	for _, tt := range []struct {
		lo, hi float64
		want   string
	}{{0, 1, "[0 0.25 0.5 0.75 1]"}, {0, 62.97, "[0 20 40 60 80]"}, {5, 5, "[0 2 4 6 8]"}, {-3, 7, "[-5 -2.5 0 2.5 5 7.5]"}, {0, 0, "[0 0.25 0.5 0.75 1]"}} {
		ticks, _, _ := niceTicks(tt.lo, tt.hi, 5)
		if got := fmt.Sprint(ticks); got != tt.want {
			t.Errorf("niceTicks(%v, %v) = %s, want %s", tt.lo, tt.hi, got, tt.want)
		}
	}
}

// ---- in a real browser ----

// artifactDir is where browser tests leave what a person may want to look
// at: $RWDIAG_TEST_ARTIFACTS, else the test's temporary directory.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("RWDIAG_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// headless loads a file in headless Chromium with every name resolving to
// nothing, and returns the DOM after load and the URLs the page asked the
// network for (from Chromium's net log; the browser's own background
// requests, which name no origin, are not the page's). With shot, it also
// saves a 1280×2000 screenshot there.
func headless(t *testing.T, chromium, file, shot string) (dom string, requests []string) {
	t.Helper()
	tmp := t.TempDir()
	netlog := filepath.Join(tmp, "net.json")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(tmp, "profile"), "--host-resolver-rules=MAP * ~NOTFOUND",
		"--log-net-log=" + netlog, "--dump-dom", "--window-size=1280,2000"}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, append(args, "file://"+abs)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", chromium, err, stderr.String())
	}
	data, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("no net log: %v\n%s", err, stderr.String())
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int            `json:"type"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("net log names no URL_REQUEST_START_JOB events")
	}
	for _, e := range log.Events {
		if e.Type != start {
			continue
		}
		u, _ := e.Params["url"].(string)
		initiator, _ := e.Params["initiator"].(string)
		if u == "" || initiator == "not an origin" || strings.HasPrefix(u, "file:") || strings.HasPrefix(u, "data:") {
			continue
		}
		requests = append(requests, u)
	}
	return stdout.String(), requests
}

// The net-log check sees a page that does load something.
func TestHeadlessSeesPageRequests(t *testing.T) {
	chromium := findChromium(t)
	page := filepath.Join(t.TempDir(), "loads.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><img src="http://img.example.invalid/x.png"><p>hi</p></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, reqs := headless(t, chromium, page, "")
	if !strings.Contains(dom, "<p>hi</p>") {
		t.Errorf("DOM = %s", dom)
	}
	if len(reqs) == 0 || !strings.Contains(strings.Join(reqs, " "), "img.example.invalid") {
		t.Errorf("requests = %q, want the image's", reqs)
	}
}

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (.ci/run installs it)")
	return ""
}

var (
	articleRE = regexp.MustCompile(`(?s)<article class="finding [a-z]+" id="f-([0-9a-f]+)".*?</article>`)
	figureRE  = regexp.MustCompile(`(?s)<figure class="chart" data-signal="([^"]+)">.*?</figure>`)
)

// The HTML report of each sample, loaded in headless Chromium with no name
// resolving: every firing finding and every chart of its metrics is in the
// DOM, each chart an SVG with a polyline per series, and the page asked the
// network for nothing. The screenshots are left in the artifact directory.
func TestHTMLReportInBrowser(t *testing.T) {
	chromium := findChromium(t)
	rules := loadTestRules(t, "../../rules")
	artifacts := artifactDir(t)
	for _, s := range []struct{ name, path string }{
		{"compound-incident", "../../samples/compound-incident"},
		{"oom-crash-loop", "../../samples/oom-crash-loop"},
		{"barrier-stall", "../../rules/testdata/barrier-stall"},
		{"backfill", "../../rules/testdata/backfill"},
	} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(s.path); err != nil {
				t.Skipf("%s: %v", s.path, err)
			}
			rep, x, err := analyze.Investigate(context.Background(), s.path, rules, bundle.Options{}, analyze.TimelineOptions{})
			if err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(artifacts, "report-"+s.name+".html")
			var b bytes.Buffer
			if err := WriteWith(&b, rep, FormatHTML, x); err != nil {
				t.Fatal(err)
			}
			checkSelfContained(t, b.String())
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(artifacts, "report-"+s.name+".png")
			dom, reqs := headless(t, chromium, page, shot)
			t.Logf("report %s, screenshot %s", page, shot)
			if len(reqs) > 0 {
				t.Errorf("the page made network requests: %q", reqs)
			}
			if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
				t.Errorf("screenshot %s: %v", shot, err)
			}
			articles := map[string]string{}
			for _, m := range articleRE.FindAllStringSubmatch(dom, -1) {
				articles[m[1]] = m[0]
			}
			firing := 0
			for _, f := range rep.Findings {
				if f.Status != analyze.StatusFiring {
					continue
				}
				firing++
				art, ok := articles[f.Fingerprint]
				if !ok {
					t.Errorf("finding %s %s is not in the DOM", f.Rule, f.Subject)
					continue
				}
				if !strings.Contains(art, f.Rule) {
					t.Errorf("finding %s's article does not name its rule", f.Rule)
				}
				want := map[string]int{} // signal -> series
				if h := x.History[f.Fingerprint]; h != nil {
					for _, sh := range h.Signals {
						if len(sh.Series) > 0 {
							want[sh.Name] = min(len(sh.Series), chartMaxSeries)
						}
					}
				}
				got := map[string]bool{}
				for _, m := range figureRE.FindAllStringSubmatch(art, -1) {
					got[m[1]] = true
					if !strings.Contains(m[0], "<svg") {
						t.Errorf("%s: chart %s has no svg", f.Rule, m[1])
					}
					if n := strings.Count(m[0], "<polyline"); n < want[m[1]] {
						t.Errorf("%s: chart %s has %d polylines, want one per series (%d)", f.Rule, m[1], n, want[m[1]])
					}
				}
				for sig := range want {
					if !got[sig] {
						t.Errorf("%s: no chart of signal %s", f.Rule, sig)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s: charts %v, want %v", f.Rule, got, want)
				}
			}
			if firing == 0 {
				t.Error("the sample has no firing finding to show")
			}
			if s.name == "compound-incident" && len(articles) < 2 {
				t.Errorf("compound-incident shows %d findings, want the backfill and the OOM loop", len(articles))
			}
		})
	}
}
