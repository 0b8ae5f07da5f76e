package kube

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// AuditEvent is the part of an audit.k8s.io/v1 Event the checks read.
type AuditEvent struct {
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"responseStatus"`
	RequestReceived time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp  time.Time `json:"stageTimestamp"`
}

// Resource is "pods", "pods/log", "risingwaves.risingwave.risingwavelabs.com", or "" for a non-resource URL.
func (e AuditEvent) Resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	r := e.ObjectRef.Resource
	if e.ObjectRef.APIGroup != "" && e.ObjectRef.APIGroup != "apps" {
		r += "." + e.ObjectRef.APIGroup
	}
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return r
}

// Code is the response's status code (0 when the request never finished).
func (e AuditEvent) Code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

func (e AuditEvent) String() string {
	s := fmt.Sprintf("%s %s", e.Verb, e.Resource())
	if e.ObjectRef != nil && e.ObjectRef.Name != "" {
		s += " " + e.ObjectRef.Name
	}
	return fmt.Sprintf("%s -> %d (%s)", s, e.Code(), e.RequestURI)
}

// ReadAudit reads an audit log (JSON lines) and returns one event per
// request, its last stage (ResponseComplete or Panic; ResponseStarted for a
// stream still open), in the order the requests arrived.
func ReadAudit(path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byID := map[string]int{}
	var evs []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		var ev AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			// The server may be writing the last line as we read.
			if !sc.Scan() {
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if i, ok := byID[ev.AuditID]; ok {
			evs[i] = ev
			continue
		}
		byID[ev.AuditID] = len(evs)
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	slices.SortStableFunc(evs, func(a, b AuditEvent) int { return a.RequestReceived.Compare(b.RequestReceived) })
	return evs, nil
}

// Audit is the harness's audit log, read now.
func (h *Harness) Audit(t testing.TB) []AuditEvent {
	t.Helper()
	evs, err := ReadAudit(h.AuditLog)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// ByUser keeps the events of one user.
func ByUser(evs []AuditEvent, user string) []AuditEvent {
	var out []AuditEvent
	for _, e := range evs {
		if e.User.Username == user {
			out = append(out, e)
		}
	}
	return out
}

// ReadOnlyVerbs are the verbs a collector may use.
var ReadOnlyVerbs = []string{"get", "list", "watch"}

// Expected says which failed answers a check accepts: a request for which
// it returns true may have any status.
type Expected func(AuditEvent) bool

// MissingCRD accepts a 404 on listing the RisingWave resources: a cluster
// without the operator's CRD (a helm install), which the collector notes
// and goes on.
func MissingCRD(e AuditEvent) bool {
	return e.Code() == 404 && e.Verb == "list" && e.Resource() == "risingwaves.risingwave.risingwavelabs.com"
}

// CheckReadOnly checks what user asked of the API server: every request is
// get, list or watch; none is on secrets (not even a list or a refused
// get); none was answered 4xx or 5xx unless expected says it may be. It
// returns one line per problem, and a problem when user made no request at
// all (the log would prove nothing).
func CheckReadOnly(evs []AuditEvent, user string, expected Expected) []string {
	mine := ByUser(evs, user)
	if len(mine) == 0 {
		return []string{fmt.Sprintf("no request by %s in the audit log: nothing to check", user)}
	}
	var problems []string
	for _, e := range mine {
		if !slices.Contains(ReadOnlyVerbs, e.Verb) {
			problems = append(problems, "write: "+e.String())
		}
		if e.ObjectRef != nil && e.ObjectRef.Resource == "secrets" && e.ObjectRef.APIGroup == "" {
			problems = append(problems, "secret: "+e.String())
		}
		if c := e.Code(); c >= 400 && (expected == nil || !expected(e)) {
			msg := "refused: "
			if c >= 500 {
				msg = "failed: "
			}
			problems = append(problems, msg+e.String())
		}
	}
	return problems
}

// Summary counts requests by verb and resource, e.g. "list pods 3".
func Summary(evs []AuditEvent) string {
	counts := map[string]int{}
	for _, e := range evs {
		counts[e.Verb+" "+e.Resource()]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d; ", k, counts[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}
