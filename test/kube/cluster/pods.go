package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Addresses are the pod IPs fixtures listen on: 192.0.2.10 to 192.0.2.49
// (TEST-NET-1: the API server refuses to proxy to loopback addresses, and
// these route nowhere outside the test's network namespace). The harness
// adds each to lo as a /32 before Start. A fixture takes one per sample pod
// and one for all its filler pods, and gives them back in Close.
var Addresses = func() []string {
	var a []string
	for i := 10; i < 50; i++ {
		a = append(a, "192.0.2."+strconv.Itoa(i))
	}
	return a
}()

var pool struct {
	mu   sync.Mutex
	used map[string]bool
}

// takeAddresses reserves n addresses of Addresses.
func takeAddresses(n int) ([]string, error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.used == nil {
		pool.used = map[string]bool{}
	}
	var got []string
	for _, a := range Addresses {
		if len(got) == n {
			break
		}
		if !pool.used[a] {
			got = append(got, a)
		}
	}
	if len(got) < n {
		return nil, fmt.Errorf("the fixture needs %d pod addresses and only %d of cluster.Addresses are free", n, len(got))
	}
	for _, a := range got {
		pool.used[a] = true
	}
	return got, nil
}

func giveAddresses(as []string) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, a := range as {
		delete(pool.used, a)
	}
}

// A ProxyRequest is one request a pod server received through the API
// server's pod proxy.
type ProxyRequest struct {
	At       time.Time
	Pod      string // the pod the address and port belong to ("" for the filler pods' shared one)
	Addr     string // ip:port
	PortName string // metrics or dashboard
	Path     string
	Status   int
	Bytes    int
}

// podServers serve the pods' metrics and dashboard ports.
type podServers struct {
	mu       sync.Mutex
	servers  []*http.Server
	requests []ProxyRequest
	served   map[string]int // pod -> scrapes served
}

// A podEndpoint is what one address:port answers.
type podEndpoint struct {
	pod      string
	portName string
	scrapes  []scrape          // metrics: served in turn
	filler   []byte            // metrics of filler pods: the same each time
	pages    map[string][]byte // dashboard: path -> body
}

func (ps *podServers) listen(addr string, ep *podEndpoint) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pod server for %s (%s): %w (is the address on lo in this network namespace? see cluster.Addresses)", ep.pod, ep.portName, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps.serve(w, r, addr, ep)
	}), ReadHeaderTimeout: 10 * time.Second}
	ps.mu.Lock()
	ps.servers = append(ps.servers, srv)
	ps.mu.Unlock()
	go srv.Serve(ln)
	return nil
}

func (ps *podServers) serve(w http.ResponseWriter, r *http.Request, addr string, ep *podEndpoint) {
	req := ProxyRequest{At: time.Now(), Pod: ep.pod, Addr: addr, PortName: ep.portName, Path: r.URL.Path, Status: http.StatusOK}
	var body []byte
	switch {
	case r.Method != http.MethodGet:
		req.Status = http.StatusMethodNotAllowed
	case ep.portName == "metrics" && r.URL.Path == "/metrics" && ep.filler != nil:
		body = ep.filler
	case ep.portName == "metrics" && r.URL.Path == "/metrics" && len(ep.scrapes) > 0:
		ps.mu.Lock()
		n := ps.served[ep.pod]
		ps.served[ep.pod]++
		ps.mu.Unlock()
		s := ep.scrapes[min(n, len(ep.scrapes)-1)]
		body = shiftClockGauges(s.body, s.at)
	case ep.portName == "dashboard" && ep.pages[r.URL.Path] != nil:
		body = ep.pages[r.URL.Path]
	default:
		req.Status = http.StatusNotFound
	}
	if req.Status == http.StatusOK {
		if ep.portName == "metrics" {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		}
		req.Bytes, _ = w.Write(body)
	} else {
		http.Error(w, http.StatusText(req.Status), req.Status)
	}
	ps.mu.Lock()
	ps.requests = append(ps.requests, req)
	ps.mu.Unlock()
}

func (ps *podServers) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, s := range ps.servers {
		s.Shutdown(ctx)
	}
}

// clockGauges hold unix times: a scrape replayed later moves them by as
// much as the replay is late, or the cluster would look stalled for as long
// as the sample is old (as collect/apiserver_test.go does).
var clockGauges = []string{"last_committed_barrier_time"}

func shiftClockGauges(b []byte, at time.Time) []byte {
	late := time.Since(at).Seconds()
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		for _, g := range clockGauges {
			if !strings.HasPrefix(l, g) {
				continue
			}
			sp := strings.LastIndexByte(l, ' ')
			if v, err := strconv.ParseFloat(l[sp+1:], 64); err == nil && sp > 0 {
				lines[i] = l[:sp+1] + strconv.FormatFloat(v+late, 'f', 3, 64)
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
