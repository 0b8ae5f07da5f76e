package collect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/collect"
)

// A --prometheus URL with a query string (a token a proxy in front of
// Prometheus wants) keeps it on every request, beside the API's own
// parameters; neither the token nor the password reaches the bundle, with
// redaction on or off (printed URLs mask them), nor does an error quote it.
func TestCollectPrometheusQueryToken(t *testing.T) {
	const token, password = "tok-9f8e7d6c5b4a3921", "s3cret-prom-2"
	var got []url.Values
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		got = append(got, q)
		if q.Get("token") != token || q.Get("orgId") != "7" {
			http.Error(w, "forbidden: no token", http.StatusForbidden)
			return
		}
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != password {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/prom/api/v1/query_range" || q.Get("query") == "" || q.Get("step") == "" {
			http.Error(w, "bad request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1795984992,"42"]]}]}}`)
	}))
	defer prom.Close()
	u, _ := url.Parse(prom.URL)
	u.User = url.UserPassword("reader", password)
	u.Path = "/prom"
	// "query" in the base URL is the API's: replaced, not sent twice
	u.RawQuery = "token=" + token + "&orgId=7&query=up"

	for _, noRedact := range []bool{false, true} {
		got = nil
		api := newFakeAPI(t)
		_, cfg := api.start(t)
		opts := testOptions(t, cfg)
		opts.MetricsSamples = 0
		opts.NoRedact = noRedact
		opts.Skip = []string{collect.StepLogs, collect.StepDescribe, collect.StepSQL, collect.StepDiagnose}
		opts.PrometheusURL = u.String()
		opts.PrometheusRange = time.Hour
		opts.PrometheusMetrics = []string{"jemalloc_active_bytes"}
		res, err := collect.Run(context.Background(), opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, files := readBundle(t, res.Path)
		p := bundle.PrometheusRangePath("jemalloc_active_bytes")
		if !bytes.Contains(files[p], []byte(`"42"`)) {
			t.Errorf("no-redact %v: %s: %q; errors:\n%s", noRedact, p, files[p], errorList(m))
		}
		if len(got) == 0 {
			t.Fatal("no request reached Prometheus")
		}
		for _, q := range got {
			if q.Get("token") != token || len(q["query"]) != 1 || !strings.HasPrefix(q.Get("query"), "jemalloc_active_bytes") {
				t.Errorf("request query %v: want the token, orgId and one query of the metric", q)
			}
		}
		manifest, _ := json.Marshal(m)
		for _, s := range []string{token, password} {
			if bytes.Contains(manifest, []byte(s)) {
				t.Errorf("no-redact %v: the manifest holds %q:\n%s", noRedact, s, manifest)
			}
		}
		fe, _ := m.File(p)
		if !strings.Contains(fe.Source, "query=jemalloc_active_bytes") {
			t.Errorf("source %q does not say what was asked", fe.Source)
		}
	}

	// unreachable: the error quotes the URL as printed, token masked
	api := newFakeAPI(t)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 0
	opts.NoRedact = true
	opts.Retries = 1
	opts.Skip = []string{collect.StepLogs, collect.StepDescribe, collect.StepSQL, collect.StepDiagnose}
	dead, _ := url.Parse("http://reader:" + password + "@" + closedAddr(t) + "/prom?token=" + token)
	opts.PrometheusURL = dead.String()
	opts.PrometheusMetrics = []string{"jemalloc_active_bytes"}
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := readBundle(t, res.Path)
	e, ok := findError(m, "prometheus", "jemalloc_active_bytes")
	if !ok || !strings.Contains(e.Error, "token=xxxxx") {
		t.Errorf("unreachable Prometheus: error %+v; errors:\n%s", e, errorList(m))
	}
	manifest, _ := json.Marshal(m)
	for _, s := range []string{token, password} {
		if bytes.Contains(manifest, []byte(s)) {
			t.Errorf("unreachable Prometheus: the manifest holds %q:\n%s", s, manifest)
		}
	}
}
