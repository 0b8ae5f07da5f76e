package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// maxPrometheusBytes caps one query_range answer (the analyzer reads 256 MiB).
const maxPrometheusBytes = 256 << 20

// maxPoints is below Prometheus' limit of 11,000 points per series.
const maxPoints = 10_000

// checkPrometheusURL accepts an absolute http or https URL. Its query
// parameters (a token some proxies want) are sent with every request.
func checkPrometheusURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the URL, password and all
		return nil, errors.New("prometheus URL: not a URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("prometheus URL %q: want http://HOST[:PORT][/PATH][?QUERY] or https://...", redactURL(u))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return nil, fmt.Errorf("prometheus URL %q: its query string: %v", redactURL(u), errors.Unwrap(err))
	}
	return u, nil
}

// maskedValue stands for a password or a query value in printed URLs.
const maskedValue = "xxxxx"

// redactURL prints a URL without its password and with the values of its
// query parameters masked, but for those named in keep (the API's own).
func redactURL(u *url.URL, keep ...string) string {
	v := *u
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			v.User = url.UserPassword(u.User.Username(), maskedValue)
		}
	}
	if v.RawQuery != "" {
		q, err := url.ParseQuery(v.RawQuery)
		if err != nil {
			v.RawQuery = maskedValue
		} else {
			for k, vals := range q {
				if !slices.Contains(keep, k) {
					for i := range vals {
						vals[i] = maskedValue
					}
				}
			}
			v.RawQuery = q.Encode()
		}
	}
	if v.Fragment != "" {
		v.Fragment, v.RawFragment = maskedValue, ""
	}
	return v.String()
}

// queryRangeParams are the API's own parameters, printed as they are.
var queryRangeParams = []string{"query", "start", "end", "step"}

// queryRangeURL is base's query_range endpoint with params: base's own
// query parameters are kept (a parameter of the API's replaces one of the
// same name).
func queryRangeURL(base *url.URL, params url.Values) *url.URL {
	u := base.JoinPath("api/v1/query_range")
	q := base.Query()
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	return u
}

// rangeStep picks the resolution: 15s, or coarser so no series has more
// points than Prometheus allows.
func rangeStep(r time.Duration) time.Duration {
	step := 15 * time.Second
	if min := (r + maxPoints - 1) / maxPoints; min > step {
		step = min.Round(time.Second)
		if step < min {
			step += time.Second
		}
	}
	return step
}

// spawnPrometheus reads the history of the metrics the rules use.
func (c *collector) spawnPrometheus() {
	base, err := checkPrometheusURL(c.opts.PrometheusURL)
	if err != nil {
		c.recordError(StepPrometheus, "--prometheus", err.Error(), "")
		return
	}
	names := slices.Clone(c.opts.PrometheusMetrics)
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		c.note("--prometheus: the loaded rules reference no metric names; nothing read")
		return
	}
	end := time.Now().UTC().Truncate(time.Second)
	start := end.Add(-c.opts.PrometheusRange)
	step := rangeStep(c.opts.PrometheusRange)
	client := &http.Client{Transport: http.DefaultTransport}
	for _, name := range names {
		path := bundle.PrometheusRangePath(name)
		c.spawn(StepPrometheus, name, path, func(func()) error {
			return c.queryRange(client, base, name, path, start, end, step)
		})
	}
}

// promResponse is the part of a query_range answer looked at.
type promResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		Result []json.RawMessage `json:"result"`
	} `json:"data"`
}

// queryRange reads one metric, first restricted to the namespace (the label
// kube-prometheus and the operator's ServiceMonitor add), then, if that finds
// nothing, unrestricted.
func (c *collector) queryRange(client *http.Client, base *url.URL, name, path string, start, end time.Time, step time.Duration) error {
	queries := []string{fmt.Sprintf("%s{namespace=%q}", name, c.kube.namespace), name}
	var body []byte
	var source string
	for i, q := range queries {
		v := url.Values{}
		v.Set("query", q)
		v.Set("start", strconv.FormatInt(start.Unix(), 10))
		v.Set("end", strconv.FormatInt(end.Unix(), 10))
		v.Set("step", strconv.FormatFloat(step.Seconds(), 'f', -1, 64))
		u := queryRangeURL(base, v)
		shown := redactURL(u, queryRangeParams...)
		var resp promResponse
		err := c.call("GET "+shown, func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
			if err != nil {
				return err
			}
			res, err := client.Do(req)
			if err != nil {
				// the error quotes the URL: the printed one instead
				var ue *url.Error
				if errors.As(err, &ue) {
					ue.URL = shown
				}
				return err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(io.LimitReader(res.Body, maxPrometheusBytes+1))
			if err != nil {
				return err
			}
			if int64(len(b)) > maxPrometheusBytes {
				return fmt.Errorf("answer larger than %s", formatBytes(maxPrometheusBytes))
			}
			resp = promResponse{}
			jsonErr := json.Unmarshal(b, &resp)
			if res.StatusCode != http.StatusOK {
				msg := strings.TrimSpace(string(b))
				if jsonErr == nil && resp.Error != "" {
					msg = resp.ErrorType + ": " + resp.Error
				}
				return &httpStatusError{code: res.StatusCode, msg: firstLine(msg)}
			}
			if jsonErr != nil {
				return fmt.Errorf("not a Prometheus answer: %w", jsonErr)
			}
			if resp.Status != "success" {
				return fmt.Errorf("prometheus: %s: %s", resp.ErrorType, resp.Error)
			}
			body = b
			return nil
		})
		if err != nil {
			return err
		}
		source = "GET " + shown
		if len(resp.Data.Result) > 0 || i == len(queries)-1 {
			break
		}
	}
	return c.writeData(path, source, body, redactText, nil)
}

// httpStatusError is a non-200 answer; 5xx and 429 are worth a retry.
type httpStatusError struct {
	code int
	msg  string
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.code, http.StatusText(e.code), e.msg)
}

func (e *httpStatusError) transient() bool {
	return e.code >= 500 || e.code == http.StatusTooManyRequests
}
