package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
	c := buildChart(h, s, nil)
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

// overlapHistory is a finding's history of resident memory in which pods a,
// b and c have the same values at every evaluation and pod d its own, and
// the rule first held at the held-th evaluation of n.
func overlapHistory(n, held int) (*analyze.MetricHistory, analyze.SignalHistory) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	h := &analyze.MetricHistory{Rule: "compute-oom-crash-loop", Subject: "rw-test-compute-0", SubjectKind: "pod"}
	for i := range n {
		h.Times = append(h.Times, t0.Add(time.Duration(i)*15*time.Second))
	}
	h.FirstHeld = h.Times[held]
	h.Held = make([]bool, n)
	for i := held; i < n; i++ {
		h.Held[i] = true
	}
	s := analyze.SignalHistory{Name: "rss", Description: "resident memory of each compute pod",
		PromQL: `process_resident_memory_bytes{component=~"compute|standalone"}`}
	for _, pod := range []string{"rw-test-compute-a", "rw-test-compute-b", "rw-test-compute-c"} {
		se := analyze.SeriesHistory{Series: `process_resident_memory_bytes{pod="` + pod + `"}`, Labels: map[string]string{"pod": pod}}
		for _, t := range h.Times {
			se.Points = append(se.Points, analyze.MetricPoint{T: t, V: 2 << 30})
		}
		s.Series = append(s.Series, se)
	}
	return h, s
}

func TestChartSameSeries(t *testing.T) {
	h, s := overlapHistory(6, 3)
	other := analyze.SeriesHistory{Series: `{pod="rw-test-compute-d"}`, Labels: map[string]string{"pod": "rw-test-compute-d"}}
	for i, tm := range h.Times {
		other.Points = append(other.Points, analyze.MetricPoint{T: tm, V: float64(i) * (1 << 28)})
	}
	s.Series = append(s.Series, other)
	c := buildChart(h, s, nil)
	if len(c.Lines) != 4 {
		t.Fatalf("%d lines, want 4", len(c.Lines))
	}
	styles := map[string]string{}
	for _, l := range c.Lines {
		st := l.Dash + "/" + l.DashOffset
		if o, ok := styles[st]; ok {
			t.Errorf("%s and %s are drawn alike (dash %q)", o, l.Label, st)
		}
		styles[st] = l.Label
	}
	if want := []string{"3 series identical: pod=rw-test-compute-a, pod=rw-test-compute-b, pod=rw-test-compute-c"}; !slices.Equal(c.Same, want) {
		t.Errorf("notes %q, want %q", c.Same, want)
	}
	// The three identical lines take turns along one line: one whole
	// beneath, the others in dashes of one length that do not overlap.
	if c.Lines[0].Dash != "" || c.Lines[1].Dash != c.Lines[2].Dash || c.Lines[1].DashOffset == c.Lines[2].DashOffset {
		t.Errorf("identical lines' dashes: %+v", c.Lines[:3])
	}
	// Their dots are rings: the lower, the larger.
	if a, b := c.Lines[0].Dots[0].D, c.Lines[2].Dots[0].D; a == b {
		t.Errorf("identical series' first dots are the same path %q", a)
	}
	shapes := map[string]bool{}
	for _, l := range c.Lines {
		shapes[l.Shape] = true
	}
	if len(shapes) != 4 {
		t.Errorf("marker shapes %v, want one per series", shapes)
	}

	// Values closer than the chart shows are drawn on one line, and said so.
	s.Series[1].Points[2].V += 1
	c = buildChart(h, s, nil)
	if len(c.Same) != 1 || !strings.HasPrefix(c.Same[0], "3 series overlap, their values closer than the chart shows: ") {
		t.Errorf("notes %q, want 3 series overlapping", c.Same)
	}
	// Series named by several labels are told apart by semicolons.
	h2, s2 := overlapHistory(3, 0)
	for i := range s2.Series {
		s2.Series[i].Labels["partition"] = strconv.Itoa(i)
	}
	if c := buildChart(h2, s2, nil); len(c.Same) != 1 || c.Same[0] != "3 series identical: pod=rw-test-compute-a, partition=0; pod=rw-test-compute-b, partition=1; pod=rw-test-compute-c, partition=2" {
		t.Errorf("notes %q", c.Same)
	}
	// Apart at one point: not one line.
	s.Series[1].Points[2].V = 3 << 30
	if c = buildChart(h, s, nil); len(c.Same) != 1 || !strings.HasPrefix(c.Same[0], "2 series identical: pod=rw-test-compute-a, pod=rw-test-compute-c") {
		t.Errorf("notes %q, want a and c identical", c.Same)
	}
}

func TestChartMemoryLimit(t *testing.T) {
	h, s := overlapHistory(6, 5)
	f := analyze.Finding{Subject: "rw-test-compute-0", Evidence: []analyze.Evidence{
		{Signal: "containers", Text: "pod rw-test-compute-a: spec.containers[name=log-shipper]: container=log-shipper, memory_limit=256Mi"},
		{Signal: "containers", Text: "pod rw-test-compute-a: spec.containers[name=compute]: container=compute, memory_limit=4Gi, total_memory=3221225472"},
		{Signal: "containers", Text: "pod rw-test-compute-b: spec.containers[name=compute]: container=compute, memory_limit=4294967296"},
		{Signal: "containers", Text: "pod rw-test-compute-c: container=compute, memory_limit=6G"},
		{Signal: "starts", Text: "memory_limit=oops"},
	}}
	limits := memoryLimits(f)
	if want := map[string]float64{"rw-test-compute-a": 4 << 30, "rw-test-compute-b": 4 << 30, "rw-test-compute-c": 6e9}; !maps.Equal(limits, want) {
		t.Fatalf("memoryLimits = %v, want %v", limits, want)
	}
	// Worded otherwise, or only in the summary.
	for _, tt := range []struct {
		f    analyze.Finding
		want map[string]float64
	}{
		{analyze.Finding{Subject: "p0", SubjectKind: "pod", Evidence: []analyze.Evidence{{Text: "pod p1 container compute: memory limit 2Gi"}}}, map[string]float64{"p1": 2 << 30}},
		{analyze.Finding{Subject: "p0", SubjectKind: "pod", Summary: "p0 was OOMKilled; memory limit 7.5GiB; resident memory reached 7.61GiB."}, map[string]float64{"p0": 7.5 * (1 << 30)}},
		{analyze.Finding{Subject: "p0", SubjectKind: "pod", Summary: "p0 was OOMKilled; resident memory reached 7.61GiB."}, map[string]float64{}},
	} {
		if got := memoryLimits(tt.f); !maps.Equal(got, tt.want) {
			t.Errorf("memoryLimits(%+v) = %v, want %v", tt.f, got, tt.want)
		}
	}
	c := buildChart(h, s, limits)
	var labels []string
	for _, l := range c.Limits {
		labels = append(labels, l.Label)
		if l.Y < c.Y0 || l.Y > c.Y1 {
			t.Errorf("limit %q at y=%v, outside the plot %v..%v", l.Label, l.Y, c.Y0, c.Y1)
		}
	}
	if want := []string{"memory limit 4 GiB (rw-test-compute-a, rw-test-compute-b)", "memory limit 5.59 GiB (rw-test-compute-c)"}; !slices.Equal(labels, want) {
		t.Errorf("limit labels %q, want %q", labels, want)
	}
	// The marker sits at the right edge: its label is drawn leftwards, and
	// the limits' labels go to the left end.
	if c.Marker == nil || c.Marker.Anchor != "end" || c.Marker.DX >= 0 || c.Limits[0].Anchor != "start" {
		t.Errorf("marker %+v, limit %+v", c.Marker, c.Limits[0])
	}
	// One limit shared by every pod of the chart is not labelled with them.
	c = buildChart(h, s, map[string]float64{"rw-test-compute-a": 8 << 30, "rw-test-compute-b": 8 << 30, "rw-test-compute-c": 8 << 30})
	if len(c.Limits) != 1 || c.Limits[0].Label != "memory limit 8 GiB" || c.YTicks[len(c.YTicks)-1].Label != "8 GiB" {
		t.Errorf("limits %+v, y ticks %+v", c.Limits, c.YTicks)
	}
	// Not a memory chart: no limit.
	s.PromQL = "stream_memory_usage"
	if c = buildChart(h, s, limits); len(c.Limits) != 0 {
		t.Errorf("a chart of %s has limits %+v", s.PromQL, c.Limits)
	}
	for in, want := range map[string]float64{"8Gi": 8 << 30, "512Mi": 512 << 20, "1.5G": 1.5e9, "1e9": 1e9, "100k": 1e5, "2048": 2048} {
		if got, ok := parseQuantity(in); !ok || got != want {
			t.Errorf("parseQuantity(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "Gi", "8GB", "-1Gi", "8 Gi"} {
		if got, ok := parseQuantity(in); ok {
			t.Errorf("parseQuantity(%q) = %v, want refused", in, got)
		}
	}
}

// Limits from the bundle's pods (Forensics.MemoryLimits) are drawn for
// every pod of the chart, each at its own value; the finding's text is read
// only when the forensics have none.
func TestChartMemoryLimitsFromForensics(t *testing.T) {
	h, s := overlapHistory(6, 2)
	h.Signals = []analyze.SignalHistory{s}
	f := analyze.Finding{Rule: "compute-oom-crash-loop", Severity: analyze.SeverityWarning, Status: analyze.StatusFiring,
		Subject: "rw-test-compute-a", SubjectKind: "pod", Fingerprint: "0a1b2c3d4e5f6071", Summary: "memory limit 1GiB",
		Evidence: []analyze.Evidence{{Signal: "containers", Text: "pod rw-test-compute-a: container=compute, memory_limit=1Gi"}}}
	h.Fingerprint = f.Fingerprint
	rep := &analyze.Report{SchemaVersion: analyze.ReportSchemaVersion, Tool: "rwdiag", Findings: []analyze.Finding{f},
		Bundle: analyze.BundleInfo{Path: "limits-test", Archive: "directory"}}
	page := func(limits map[string]float64) string {
		x := &analyze.Forensics{History: map[string]*analyze.MetricHistory{f.Fingerprint: h}, MemoryLimits: limits}
		var b bytes.Buffer
		if err := WriteWith(&b, rep, FormatHTML, x); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	limitLabel := regexp.MustCompile(`<text class="limit-label[^>]*>([^<]*)</text>`)
	labels := func(p string) []string {
		var out []string
		for _, m := range limitLabel.FindAllStringSubmatch(p, -1) {
			out = append(out, m[1])
		}
		return out
	}
	// Pod c has no known limit, and a pod not on the chart is not drawn.
	got := labels(page(map[string]float64{"rw-test-compute-a": 4 << 30, "rw-test-compute-b": 6 << 30, "rw-test-meta-0": 2 << 30}))
	if want := []string{"memory limit 4 GiB (rw-test-compute-a)", "memory limit 6 GiB (rw-test-compute-b)"}; !slices.Equal(got, want) {
		t.Errorf("limits from the forensics: %q, want %q", got, want)
	}
	// Without them, the finding's evidence: the subject's limit only.
	if got, want := labels(page(nil)), []string{"memory limit 1 GiB (rw-test-compute-a)"}; !slices.Equal(got, want) {
		t.Errorf("limits from the evidence: %q, want %q", got, want)
	}
	// A bundle whose pods state none (an empty map is not absent data).
	if got := labels(page(map[string]float64{})); len(got) != 0 {
		t.Errorf("forensics without limits drew %q", got)
	}
}

// The spans in which the rule held are shaded: one band per run of held
// evaluations, from its first to the next evaluation; at the end, to the
// last, at least a few units wide.
func TestChartHeldBands(t *testing.T) {
	h, s := overlapHistory(10, 2)
	h.Held = []bool{false, false, true, true, false, false, true, false, false, false}
	c := buildChart(h, s, nil)
	x := func(i int) float64 { return c.X0 + (c.X1-c.X0)*float64(i)/9 }
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.11 }
	if len(c.Held) != 2 {
		t.Fatalf("bands %+v, want 2", c.Held)
	}
	for n, want := range [][2]int{{2, 4}, {6, 7}} {
		if b := c.Held[n]; !near(b.X, x(want[0])) || !near(b.X+b.W, x(want[1])) {
			t.Errorf("band %d spans %.1f..%.1f, want %.1f..%.1f (evaluations %d to %d)", n, b.X, b.X+b.W, x(want[0]), x(want[1]), want[0], want[1])
		}
	}
	if !strings.HasPrefix(c.HeldLegend, "shaded: where the rule's condition held") {
		t.Errorf("legend %q", c.HeldLegend)
	}
	// Held at the last evaluation alone: a thin band inside the plot.
	h.Held = []bool{false, false, true, false, false, false, false, false, false, true}
	c = buildChart(h, s, nil)
	if len(c.Held) != 2 || c.Held[1].W < chartMinBand || !near(c.Held[1].X+c.Held[1].W, c.X1) {
		t.Errorf("bands %+v, want the last one %v wide ending at %v", c.Held, chartMinBand, c.X1)
	}
	// No Held (older data), or one that does not match Times: no band, no legend.
	for _, held := range [][]bool{nil, {true, true}} {
		h.Held = held
		if c = buildChart(h, s, nil); c.Held != nil || c.HeldLegend != "" {
			t.Errorf("held %v: bands %+v, legend %q", held, c.Held, c.HeldLegend)
		}
	}
	// In the page: behind the series, with the legend.
	h.Held = []bool{true, false, true, true, false, false, false, false, false, false}
	var b bytes.Buffer
	if err := reportHTML().ExecuteTemplate(&b, "chart", buildChart(h, s, nil)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, `<rect class="held"`); n != 2 {
		t.Errorf("%d held rects, want 2", n)
	}
	if r, p := strings.Index(out, `<rect class="held"`), strings.Index(out, "<polyline"); r < 0 || r > p {
		t.Errorf("held band at %d, first series at %d: not behind the series", r, p)
	}
	if !strings.Contains(out, `<li class="held">`) {
		t.Error("no legend entry for the band")
	}
}

// hue classes of screenshot pixels.
const (
	hueNone = iota
	hueBlue
	hueRed
	hueGreen
	hueDark
)

// pixelHue classifies a pixel: the series colours c0 (blue), c1 (red, as
// the rule-held marker is) and c2 (green), blended with white as
// anti-aliasing leaves them; near black (the memory limit); or none.
func pixelHue(c color.Color) int {
	r16, g16, b16, _ := c.RGBA()
	r, g, b := float64(r16>>8), float64(g16>>8), float64(b16>>8)
	hi, lo := max(r, g, b), min(r, g, b)
	if hi < 80 {
		return hueDark
	}
	if hi == 0 || (hi-lo)/hi < 0.25 {
		return hueNone
	}
	var h float64
	switch hi {
	case r:
		h = math.Mod((g-b)/(hi-lo)*60+360, 360)
	case g:
		h = (b-r)/(hi-lo)*60 + 120
	default:
		h = (r-g)/(hi-lo)*60 + 240
	}
	switch {
	case h >= 185 && h <= 225:
		return hueBlue
	case h >= 340 || h <= 12:
		return hueRed
	case h >= 95 && h <= 150:
		return hueGreen
	}
	return hueNone
}

// Three series with the same values, in a report loaded in headless
// Chromium: each is drawn in its own dash (DOM) and each colour shows along
// the line (screenshot pixels), the legend says they are identical, and the
// memory limit line and the rule-held marker are on the chart.
func TestHTMLChartOverlapInBrowser(t *testing.T) {
	chromium := findChromium(t)
	h, s := overlapHistory(60, 44)
	h.Signals = []analyze.SignalHistory{s}
	// Held in two runs, 44-50 and 54-59: two bands.
	for i := 51; i < 54; i++ {
		h.Held[i] = false
	}
	f := analyze.Finding{Rule: "compute-oom-crash-loop", Pattern: "oom-crash-loop", Severity: analyze.SeverityWarning,
		Status: analyze.StatusFiring, Title: "Compute node killed for memory again and again", Subject: "rw-test-compute-0",
		SubjectKind: "pod", Summary: "Three compute pods at the same memory.", Fingerprint: "5e1f0c7a9b3d2e41",
		Evidence: []analyze.Evidence{
			{Signal: "containers", Path: "kubernetes/pods.json", Text: "pod rw-test-compute-a: container=compute, memory_limit=4Gi"},
			{Signal: "containers", Path: "kubernetes/pods.json", Text: "pod rw-test-compute-b: container=compute, memory_limit=4Gi"},
			{Signal: "containers", Path: "kubernetes/pods.json", Text: "pod rw-test-compute-c: container=compute, memory_limit=4Gi"},
		}}
	h.Fingerprint = f.Fingerprint
	rep := &analyze.Report{SchemaVersion: analyze.ReportSchemaVersion, Tool: "rwdiag", Findings: []analyze.Finding{f},
		Bundle: analyze.BundleInfo{Path: "overlap-test", Archive: "directory"}}
	x := &analyze.Forensics{History: map[string]*analyze.MetricHistory{f.Fingerprint: h}}
	var b bytes.Buffer
	if err := WriteWith(&b, rep, FormatHTML, x); err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, b.String())
	artifacts := artifactDir(t)
	page := filepath.Join(artifacts, "report-overlap.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "report-overlap.png")
	dom, reqs := headless(t, chromium, page, shot)
	t.Logf("report %s, screenshot %s", page, shot)
	if len(reqs) > 0 {
		t.Errorf("the page made network requests: %q", reqs)
	}

	// The DOM.
	fig := figureRE.FindString(dom)
	if fig == "" {
		t.Fatalf("no chart in the DOM")
	}
	lines := regexp.MustCompile(`<polyline [^>]*>`).FindAllString(fig, -1)
	if len(lines) != 3 {
		t.Fatalf("%d polylines, want 3: %q", len(lines), lines)
	}
	attr := func(tag, name string) string {
		m := regexp.MustCompile(`\s` + name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return ""
		}
		return m[1]
	}
	styles := map[string]bool{}
	for _, l := range lines {
		styles[attr(l, "stroke-dasharray")+"/"+attr(l, "stroke-dashoffset")] = true
	}
	if len(styles) != 3 {
		t.Errorf("the three lines have %d distinct dash patterns, want 3: %q", len(styles), lines)
	}
	if want := "3 series identical: pod=rw-test-compute-a, pod=rw-test-compute-b, pod=rw-test-compute-c"; !strings.Contains(fig, want) {
		t.Errorf("the legend lacks %q", want)
	}
	if !regexp.MustCompile(`<line class="limit"[^>]*>`).MatchString(fig) || !strings.Contains(fig, ">memory limit 4 GiB</text>") {
		t.Error("no memory limit line labelled 4 GiB")
	}
	marker := strings.Index(fig, `<line class="marker"`)
	if marker < 0 || !strings.Contains(fig, ">rule held</text>") {
		t.Fatal("no rule-held marker")
	}
	if marker < strings.LastIndex(fig, "<polyline") {
		t.Error("the rule-held marker is drawn beneath the series")
	}
	if n := strings.Count(fig, `<rect class="held"`); n != 2 {
		t.Errorf("%d held bands in the DOM, want 2", n)
	}
	if r := strings.Index(fig, `<rect class="held"`); r < 0 || r > strings.Index(fig, "<polyline") {
		t.Error("the held band is not drawn beneath the series")
	}
	if !strings.Contains(fig, "shaded: where the rule's condition held") {
		t.Error("the legend does not say what the band is")
	}

	// The screenshot.
	fh, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatalf("%s: %v", shot, err)
	}
	bounds := img.Bounds()
	// The marker is the one red vertical line: the column with the most
	// red, and the rows it spans are the plot's.
	mx, most := -1, 0
	for x := bounds.Min.X; x < bounds.Max.X; x++ {
		n := 0
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			if pixelHue(img.At(x, y)) == hueRed {
				n++
			}
		}
		if n > most {
			mx, most = x, n
		}
	}
	if most < 60 {
		t.Fatalf("no red vertical line of 60 pixels or more (the rule-held marker): at most %d, in column %d", most, mx)
	}
	y0, y1 := -1, -1
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		if pixelHue(img.At(mx, y)) == hueRed || pixelHue(img.At(mx+1, y)) == hueRed {
			if y0 < 0 {
				y0 = y
			}
			y1 = y
		}
	}
	// In the plot's rows, each series colour along one row, and a dark
	// unbroken line (the limit).
	widest := map[int]int{}
	darkRun := 0
	// (The limit may lie on the plot's top edge.)
	for y := y0 - 5; y <= y1+5; y++ {
		count := map[int]int{}
		run := 0
		for x := max(bounds.Min.X, mx-700); x < min(bounds.Max.X, mx+700); x++ {
			hue := pixelHue(img.At(x, y))
			if hue == hueDark {
				run++
				darkRun = max(darkRun, run)
			} else {
				run = 0
			}
			if x >= mx-3 && x <= mx+3 {
				continue // the marker
			}
			count[hue]++
		}
		for hue, n := range count {
			widest[hue] = max(widest[hue], n)
		}
	}
	for hue, name := range map[int]string{hueBlue: "blue (rw-test-compute-a)", hueRed: "red (rw-test-compute-b)", hueGreen: "green (rw-test-compute-c)"} {
		if widest[hue] < 60 {
			t.Errorf("the %s series shows %d pixels along a row of the plot (rows %d-%d), want 60 or more", name, widest[hue], y0, y1)
		}
	}
	if darkRun < 200 {
		t.Errorf("the longest dark run in the plot's rows is %d pixels, want a limit line of 200 or more", darkRun)
	}
	// The held bands, along a row of the plot clear of the series and the
	// grid's horizontal lines: two runs of tinted pixels (the grid's
	// vertical lines and the marker may cut them by a few pixels), the
	// first beginning at the marker, with plain background between them.
	tinted := func(x, y int) bool {
		r16, g16, b16, _ := img.At(x, y).RGBA()
		r, g, b := int(r16>>8), int(g16>>8), int(b16>>8)
		return r >= 225 && r-g >= 10 && r-b >= 10 && g-b <= 8 && b-g <= 8
	}
	row := y0 + (y1-y0)*3/8
	var bands [][2]int
	for x := max(bounds.Min.X, mx-700); x < min(bounds.Max.X, mx+700); x++ {
		if !tinted(x, row) {
			continue
		}
		if n := len(bands); n > 0 && x-bands[n-1][1] <= 4 {
			bands[n-1][1] = x
		} else {
			bands = append(bands, [2]int{x, x})
		}
	}
	bands = slices.DeleteFunc(bands, func(b [2]int) bool { return b[1]-b[0] < 3 })
	if len(bands) != 2 {
		t.Errorf("row %d has %d tinted runs %v, want 2 held bands", row, len(bands), bands)
	} else {
		if d := bands[0][0] - mx; d < -3 || d > 3 {
			t.Errorf("the first band begins at column %d, the marker is at %d", bands[0][0], mx)
		}
		for _, b := range bands {
			if b[1]-b[0] < 20 {
				t.Errorf("band %v is under 20 pixels wide", b)
			}
		}
		if bands[1][0]-bands[0][1] < 10 {
			t.Errorf("bands %v: no gap where the rule did not hold", bands)
		}
	}
	t.Logf("marker column %d (%d red pixels, rows %d-%d); series pixels along a row: blue %d, red %d, green %d; limit %d; held bands %v in row %d",
		mx, most, y0, y1, widest[hueBlue], widest[hueRed], widest[hueGreen], darkRun, bands, row)
}

// A timeline row shows the end of a long line, where its message is: the
// spans and module path give way first (ShortenLogText), and the whole line
// is the row's tooltip.
func TestHTMLTimelineKeepsMessage(t *testing.T) {
	at := time.Date(2026, 11, 29, 20, 19, 18, 5641000, time.UTC)
	text := `handle_query{mode="simple query" session_id=7 sql="CREATE MATERIALIZED VIEW mv_test_rollup AS SELECT r.region_id, count(DISTINCT r.visit_id) AS visits, sum(r.dwell_ms) AS dwell FROM region_visits r JOIN regions g ON r.region_id = g.region_id GROUP BY r.region_id"}: pgwire_slow_query_log: slow query elapsed=60000ms`
	x := &analyze.Forensics{Timeline: &analyze.Timeline{Entries: []analyze.TimelineEntry{{Time: at, Source: analyze.SourceLog, Level: "WARN",
		Pod: "rw-test-frontend-0", Container: "frontend", Path: "logs/rw-test-frontend-0/frontend.log", Line: 8, Text: text}}}}
	var b bytes.Buffer
	if err := WriteWith(&b, reportSample(), FormatHTML, x); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<div class="entry" title="([^"]*)">([^<]*)</div>`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatal("no timeline row")
	}
	shown := html.UnescapeString(m[2])
	if !strings.HasSuffix(shown, ": slow query elapsed=60000ms") || utf8.RuneCountInString(shown) > htmlEntryRunes {
		t.Errorf("the row shows %d runes %q, want at most %d ending in the message", utf8.RuneCountInString(shown), shown, htmlEntryRunes)
	}
	if html.UnescapeString(m[1]) != text {
		t.Errorf("the tooltip is %q, want the whole line", m[1])
	}
}
