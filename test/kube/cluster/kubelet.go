package cluster

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A logFile is a container log as the kubelet keeps it: lines with the
// times the runtime received them.
type logFile struct {
	lines []logLine
}

type logLine struct {
	ts     time.Time
	tsText string // as the kubelet prints it (RFC 3339 with nanoseconds, trailing zeros cut)
	text   string // the line, its newline included
}

// parseLog reads a sample log. A file every line of which starts with an
// RFC 3339 time and a space is `kubectl logs --timestamps` output: the time
// is the kubelet's, the rest the line. Otherwise the lines are the
// container's own and get the time their own text starts with, else the
// time of the line before (the lines before the first time, the first time).
func parseLog(path string, b []byte) (*logFile, error) {
	raw := splitLines(b)
	stamped := len(raw) > 0
	for _, l := range raw {
		tok, _, ok := strings.Cut(l, " ")
		if _, err := time.Parse(time.RFC3339Nano, tok); !ok || err != nil {
			stamped = false
			break
		}
	}
	lf := &logFile{}
	var last time.Time
	for _, l := range raw {
		tok, rest, _ := strings.Cut(l, " ")
		ts, err := time.Parse(time.RFC3339Nano, tok)
		if stamped {
			lf.lines = append(lf.lines, logLine{ts: ts, tsText: tok, text: rest})
			continue
		}
		if err != nil {
			ts = last
		}
		last = ts
		lf.lines = append(lf.lines, logLine{ts: ts, text: l})
	}
	if !stamped {
		var first time.Time
		for _, l := range lf.lines {
			if !l.ts.IsZero() {
				first = l.ts
				break
			}
		}
		if first.IsZero() && len(lf.lines) > 0 {
			return nil, fmt.Errorf("%s:1: no line starts with an RFC 3339 time, so the log has no times to serve", path)
		}
		for i := range lf.lines {
			if lf.lines[i].ts.IsZero() {
				lf.lines[i].ts = first
			}
			lf.lines[i].tsText = lf.lines[i].ts.UTC().Format(time.RFC3339Nano)
		}
	}
	return lf, nil
}

// splitLines splits after each newline; a last line without one is kept.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// logOptions are the kubelet's log query (the v1 PodLogOptions the API
// server forwards).
type logOptions struct {
	timestamps bool
	since      time.Time
	tail       int64 // -1: all
	limit      int64 // -1: no limit
}

// render writes a log as the kubelet serves it (pkg/kubelet/kuberuntime/logs
// of v1.37.2: lines before since are skipped, the last tail lines kept, the
// time and a space before each line with timestamps, the output cut at limit
// bytes, mid-line if so).
func (lf *logFile) render(o logOptions) []byte {
	lines := lf.lines
	if !o.since.IsZero() {
		var kept []logLine
		for _, l := range lines {
			if !l.ts.Before(o.since) {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	if o.tail >= 0 && int64(len(lines)) > o.tail {
		lines = lines[int64(len(lines))-o.tail:]
	}
	var buf bytes.Buffer
	for _, l := range lines {
		if o.timestamps {
			buf.WriteString(l.tsText)
			buf.WriteByte(' ')
		}
		buf.WriteString(l.text)
	}
	b := buf.Bytes()
	if o.limit >= 0 && int64(len(b)) > o.limit {
		b = b[:o.limit]
	}
	return b
}

// A LogRequest is one request the kubelet stand-in received.
type LogRequest struct {
	At                    time.Time
	Namespace, Pod        string
	Container             string
	Previous, Timestamps  bool
	SinceSeconds          *int64
	SinceTime             string
	TailLines, LimitBytes *int64
	Query                 string // the raw query string
	ClientCN              string // the API server's kubelet client certificate, if it sent one
	Status                int
	Bytes                 int // body bytes written
}

// Kubelet is the kubelet stand-in.
type Kubelet struct {
	clock time.Time
	srv   *http.Server
	ln    net.Listener
	port  int

	mu       sync.Mutex
	pods     map[string]map[string]bool // ns/pod -> its containers
	logs     map[string]*logFile        // ns/pod/container[/previous]
	requests []LogRequest
	onLog    []func(LogRequest)
	slow     map[string]time.Duration // ns/pod -> delay before answering
}

// startKubelet listens on addr ("127.0.0.1:0" for a free port) with a
// self-signed certificate for 127.0.0.1.
func startKubelet(addr string, clock time.Time) (*Kubelet, error) {
	cert, err := selfSigned("rwdiag-test-kubelet", net.ParseIP("127.0.0.1"))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("kubelet stand-in: %w", err)
	}
	k := &Kubelet{clock: clock, ln: ln, port: ln.Addr().(*net.TCPAddr).Port,
		pods: map[string]map[string]bool{}, logs: map[string]*logFile{}, slow: map[string]time.Duration{}}
	k.srv = &http.Server{Handler: k, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequestClientCert}, ReadHeaderTimeout: 10 * time.Second}
	go k.srv.ServeTLS(ln, "", "")
	return k, nil
}

// Port is the port the stand-in listens on (the nodes' kubelet port).
func (k *Kubelet) Port() int { return k.port }

func (k *Kubelet) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	k.srv.Shutdown(ctx)
}

func (k *Kubelet) addPod(ns, pod string, containers []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := map[string]bool{}
	for _, c := range containers {
		m[c] = true
	}
	k.pods[ns+"/"+pod] = m
}

func (k *Kubelet) removePod(ns, pod string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.pods, ns+"/"+pod)
}

func (k *Kubelet) setLog(ns, pod, container string, previous bool, lf *logFile) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := ns + "/" + pod + "/" + container
	if previous {
		key += "/previous"
	}
	k.logs[key] = lf
}

// Requests returns the requests received so far, in order.
func (k *Kubelet) Requests() []LogRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]LogRequest(nil), k.requests...)
}

// OnRequest calls f for every log request, before it is answered (from the
// request's goroutine: f may block it, e.g. to delete another pod first).
func (k *Kubelet) OnRequest(f func(LogRequest)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.onLog = append(k.onLog, f)
}

// Slow makes the stand-in wait d before answering for the pod's logs (or
// until the API server gives up on the request).
func (k *Kubelet) Slow(ns, pod string, d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.slow[ns+"/"+pod] = d
}

func (k *Kubelet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := LogRequest{At: time.Now(), Query: r.URL.RawQuery}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		req.ClientCN = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	cw := &countingWriter{ResponseWriter: w}
	defer func() {
		req.Status, req.Bytes = cw.status, cw.n
		if req.Status == 0 {
			req.Status = http.StatusOK
		}
		k.mu.Lock()
		k.requests = append(k.requests, req)
		k.mu.Unlock()
	}()
	if r.Method != http.MethodGet {
		http.Error(cw, "only GET is served", http.StatusMethodNotAllowed)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) != 4 || parts[0] != "containerLogs" {
		http.Error(cw, "404 page not found", http.StatusNotFound)
		return
	}
	req.Namespace, req.Pod, req.Container = parts[1], parts[2], parts[3]
	q := r.URL.Query()
	o := logOptions{tail: -1, limit: -1}
	var bad []string
	boolean := func(name string) bool {
		v := q.Get(name)
		if v == "" {
			return false
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad = append(bad, name)
		}
		return b
	}
	integer := func(name string) *int64 {
		v := q.Get(name)
		if v == "" {
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			bad = append(bad, name)
			return nil
		}
		return &n
	}
	req.Previous, req.Timestamps = boolean("previous"), boolean("timestamps")
	req.SinceSeconds, req.TailLines, req.LimitBytes = integer("sinceSeconds"), integer("tailLines"), integer("limitBytes")
	req.SinceTime = q.Get("sinceTime")
	if tail := q.Get("tail"); tail != "" && tail != "all" { // the kubelet's old name for tailLines
		req.TailLines = integer("tail")
	}
	if len(bad) > 0 {
		http.Error(cw, `{"message": "Unable to decode query."}`, http.StatusBadRequest)
		return
	}
	o.timestamps = req.Timestamps
	if req.SinceSeconds != nil {
		o.since = k.clock.Add(-time.Duration(*req.SinceSeconds) * time.Second)
	}
	if req.SinceTime != "" {
		t, err := time.Parse(time.RFC3339, req.SinceTime)
		if err != nil {
			http.Error(cw, `{"message": "Unable to decode query."}`, http.StatusBadRequest)
			return
		}
		o.since = t
	}
	if req.TailLines != nil {
		o.tail = *req.TailLines
	}
	if req.LimitBytes != nil {
		o.limit = *req.LimitBytes
	}

	k.mu.Lock()
	hooks := append([]func(LogRequest){}, k.onLog...)
	delay := k.slow[req.Namespace+"/"+req.Pod]
	k.mu.Unlock()
	for _, h := range hooks {
		h(req)
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}

	k.mu.Lock()
	containers, ok := k.pods[req.Namespace+"/"+req.Pod]
	key := req.Namespace + "/" + req.Pod + "/" + req.Container
	if req.Previous {
		key += "/previous"
	}
	lf := k.logs[key]
	k.mu.Unlock()
	switch {
	case !ok: // the kubelet's words (pkg/kubelet/server/server.go getContainerLogs)
		http.Error(cw, fmt.Sprintf("pod %q does not exist", req.Pod), http.StatusNotFound)
		return
	case !containers[req.Container]:
		http.Error(cw, fmt.Sprintf("container %q not found in pod %q", req.Container, req.Pod), http.StatusNotFound)
		return
	case lf == nil && req.Previous: // pkg/kubelet/kubelet_pods.go validateContainerLogStatus
		http.Error(cw, fmt.Sprintf("previous terminated container %q in pod %q not found", req.Container, req.Pod), http.StatusBadRequest)
		return
	case lf == nil:
		lf = &logFile{}
	}
	cw.Header().Set("Content-Type", "text/plain")
	cw.Header().Set("Transfer-Encoding", "chunked")
	cw.Write(lf.render(o))
}

type countingWriter struct {
	http.ResponseWriter
	status, n int
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += n
	return n, err
}

func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// selfSigned makes a certificate for the IPs, valid for a day.
func selfSigned(cn string, ips ...net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
