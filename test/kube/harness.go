// Package kube runs `rwdiag collect` against a real kube-apiserver (built
// from k8s.io/kubernetes v1.37.2) and a real etcd, with the collector bound
// only by docs/rbac.yaml, and reads the API server's audit log to check
// what the collector asked for.
//
// The whole test binary runs in a network namespace of its own (TestMain
// re-execs it under `unshare -n` when it runs as root): loopback is up and
// 192.0.2.10 .. 192.0.2.250 are on lo, so pod IPs the API server agrees to
// proxy to (it refuses loopback ones) reach servers in this process. Run
// everything with `bash test/kube/run.sh`; without root, unshare, etcd or
// the kube-apiserver binary the tests skip and say so.
package kube

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// KubernetesVersion is the kube-apiserver the tests run against.
const KubernetesVersion = "v1.37.2"

// Environment variables the harness reads.
const (
	// EnvAPIServer is the kube-apiserver binary; default APIServerPath().
	EnvAPIServer = "RWDIAG_KUBE_APISERVER"
	// EnvEtcd is the etcd binary; default etcd on the PATH.
	EnvEtcd = "RWDIAG_KUBE_ETCD"
	// EnvRwdiag is the rwdiag binary under test (the analysis binary, whose
	// collect runs the rwdiag-collect beside it); default: both built by
	// TestMain.
	EnvRwdiag = "RWDIAG_BIN"
	// envInside marks the re-executed test binary inside its namespace.
	envInside = "RWDIAG_KUBE_NETNS"
)

// HowToRun is what a skipped test says.
const HowToRun = "run the real-API-server tests with `bash test/kube/run.sh` (as root: it installs etcd, builds kube-apiserver " + KubernetesVersion + " once and runs the tests in a network namespace of their own)"

// APIServerPath is where run.sh keeps the kube-apiserver it builds.
func APIServerPath() string {
	if p := os.Getenv(EnvAPIServer); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "rwdiag", "kube-apiserver-"+KubernetesVersion)
}

// EtcdPath is the etcd binary, or "" when there is none.
func EtcdPath() string {
	if p := os.Getenv(EnvEtcd); p != "" {
		return p
	}
	p, _ := exec.LookPath("etcd")
	return p
}

// PodIP is the i-th address on lo for pod IPs and the servers behind them,
// 192.0.2.(10+i), i from 0 to 240. The harness's own fixtures use i >= 190.
func PodIP(i int) string {
	if i < 0 || i > 240 {
		panic(fmt.Sprintf("PodIP(%d): only 0..240 are on lo", i))
	}
	return fmt.Sprintf("192.0.2.%d", 10+i)
}

// Options configure a private API server.
type Options struct {
	// ExtraArgs are more kube-apiserver flags.
	ExtraArgs []string
}

// Harness is a running kube-apiserver on the harness's etcd.
type Harness struct {
	// Dir holds the certificates, the audit log and the server's log.
	Dir string
	// URL is https://127.0.0.1:PORT.
	URL string
	// Admin is a system:masters client certificate's configuration.
	Admin   *rest.Config
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
	// CA signed the serving and client certificates; it signs more.
	CA *CA
	// AuditLog is the audit log (JSON lines, level Metadata).
	AuditLog string
	// Startup is how long the API server took to answer /readyz.
	Startup time.Duration

	cmd    *exec.Cmd
	exited chan struct{}
	logOut *os.File
}

var (
	sharedMu  sync.Mutex
	shared    *Harness
	sharedErr error
	serial    int

	etcdOnce sync.Once
	etcdURL  string
	etcdErr  error
	etcdCmd  *exec.Cmd
	etcdDir  string
	// EtcdStartup is how long etcd took to be healthy.
	EtcdStartup time.Duration

	// skipReason, when set by TestMain, skips every harness test.
	skipReason string
)

// Shared is the API server the tests share, started on first use and
// stopped when the test binary ends. Tests keep apart by namespace and by
// the collector's ServiceAccount (the audit log is filtered by user).
func Shared(t testing.TB) *Harness {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = start(Options{}, "shared")
		if sharedErr == nil {
			fmt.Fprintf(os.Stderr, "kube harness: etcd healthy in %v, kube-apiserver %s ready in %v\n",
				EtcdStartup.Round(time.Millisecond), KubernetesVersion, shared.Startup.Round(time.Millisecond))
		}
	}
	if sharedErr != nil {
		t.Fatalf("kube harness: %v", sharedErr)
	}
	return shared
}

// Start starts a private API server for t (on the shared etcd, under a
// prefix of its own), stopped when t ends: for tests that stop it.
func Start(t testing.TB, opts Options) *Harness {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	sharedMu.Lock()
	serial++
	name := fmt.Sprintf("private%d", serial)
	sharedMu.Unlock()
	h, err := start(opts, name)
	if err != nil {
		t.Fatalf("kube harness: %v", err)
	}
	t.Logf("private kube-apiserver ready in %v", h.Startup.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kube-apiserver log (tail):\n%s", tail(filepath.Join(h.Dir, "kube-apiserver.log"), 40))
		}
		h.Stop()
		os.RemoveAll(h.Dir)
	})
	return h
}

// stopAll stops the shared API server and etcd (TestMain).
func stopAll() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Stop()
		os.RemoveAll(shared.Dir)
		shared = nil
	}
	if etcdCmd != nil {
		stopProcess(etcdCmd, nil)
		os.RemoveAll(etcdDir)
	}
}

func start(opts Options, name string) (*Harness, error) {
	etcdOnce.Do(startEtcd)
	if etcdErr != nil {
		return nil, etcdErr
	}
	bin := APIServerPath()
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no kube-apiserver at %s: %s", bin, HowToRun)
	}
	dir, err := os.MkdirTemp("", "rwdiag-kube-"+name+"-")
	if err != nil {
		return nil, err
	}
	h := &Harness{Dir: dir, AuditLog: filepath.Join(dir, "audit.log"), exited: make(chan struct{})}
	if h.CA, err = newCA(); err != nil {
		return nil, err
	}
	port, err := freePort("127.0.0.1")
	if err != nil {
		return nil, err
	}
	h.URL = "https://127.0.0.1:" + strconv.Itoa(port)
	files := map[string][]byte{"ca.crt": h.CA.CertPEM, "audit-policy.yaml": []byte(auditPolicy)}
	for _, c := range []struct {
		name string
		cert certSpec
	}{
		{"serving", certSpec{cn: "kube-apiserver", hosts: []string{"127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "10.96.0.1"}, server: true}},
		{"admin", certSpec{cn: "rwdiag-test-admin", orgs: []string{"system:masters"}}},
		{"kubelet-client", certSpec{cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}}},
	} {
		certPEM, keyPEM, err := h.CA.issue(c.cert)
		if err != nil {
			return nil, err
		}
		files[c.name+".crt"], files[c.name+".key"] = certPEM, keyPEM
	}
	saKey, saPub, err := newKeyPair()
	if err != nil {
		return nil, err
	}
	files["sa.key"], files["sa.pub"] = saKey, saPub
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--etcd-prefix=/registry-" + name,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + dir,
		"--tls-cert-file=" + f("serving.crt"),
		"--tls-private-key-file=" + f("serving.key"),
		"--client-ca-file=" + f("ca.crt"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + f("sa.pub"),
		"--service-account-signing-key-file=" + f("sa.key"),
		"--service-cluster-ip-range=10.96.0.0/16",
		// The default reconciler refuses a loopback advertise address.
		"--endpoint-reconciler-type=none",
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-client-certificate=" + f("kubelet-client.crt"),
		"--kubelet-client-key=" + f("kubelet-client.key"),
		"--audit-policy-file=" + f("audit-policy.yaml"),
		"--audit-log-path=" + h.AuditLog,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--profiling=false",
		"--v=1",
	}
	args = append(args, opts.ExtraArgs...)
	if h.logOut, err = os.Create(f("kube-apiserver.log")); err != nil {
		return nil, err
	}
	h.cmd = exec.Command(bin, args...)
	h.cmd.Stdout, h.cmd.Stderr = h.logOut, h.logOut
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	began := time.Now()
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start kube-apiserver: %w", err)
	}
	go func() { h.cmd.Wait(); close(h.exited) }()

	h.Admin = &rest.Config{
		Host: h.URL,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: h.CA.CertPEM, CertData: files["admin.crt"], KeyData: files["admin.key"],
		},
		UserAgent: "rwdiag-test-admin",
		QPS:       200, Burst: 400,
	}
	if h.Client, err = kubernetes.NewForConfig(h.Admin); err != nil {
		h.Stop()
		return nil, err
	}
	if h.Dynamic, err = dynamic.NewForConfig(h.Admin); err != nil {
		h.Stop()
		return nil, err
	}
	if err := h.waitReady(90 * time.Second); err != nil {
		h.Stop()
		return nil, fmt.Errorf("%w; log tail:\n%s", err, tail(f("kube-apiserver.log"), 30))
	}
	h.Startup = time.Since(began)
	return h, nil
}

// waitReady polls /readyz until it answers ok.
func (h *Harness) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-h.exited:
			return errors.New("kube-apiserver exited before it was ready")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		body, err := h.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			// The default namespace is made by a loop inside the server.
			if _, err := h.Client.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err == nil {
				return nil
			}
		}
		if err != nil {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %v: %s", limit, last)
}

// Stop stops the API server (SIGTERM, then SIGKILL after 10 s).
func (h *Harness) Stop() {
	stopProcess(h.cmd, h.exited)
	if h.logOut != nil {
		h.logOut.Close()
	}
}

// Kill stops the API server at once (SIGKILL), as a crash would, and waits
// until it is gone.
func (h *Harness) Kill() {
	if h.cmd == nil || h.cmd.Process == nil {
		return
	}
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	<-h.exited
}

func stopProcess(cmd *exec.Cmd, exited chan struct{}) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	if exited == nil {
		exited = make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
	}
	select {
	case <-exited:
		return
	default:
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// startEtcd starts the one etcd, on loopback, its data in memory when
// /dev/shm is there.
func startEtcd() {
	bin := EtcdPath()
	if bin == "" {
		etcdErr = errors.New("no etcd on the PATH: " + HowToRun)
		return
	}
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "rwdiag-etcd-")
	if err != nil {
		etcdErr = err
		return
	}
	etcdDir = dir
	client, err := freePort("127.0.0.1")
	if err != nil {
		etcdErr = err
		return
	}
	peer, err := freePort("127.0.0.1")
	if err != nil {
		etcdErr = err
		return
	}
	etcdURL = "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	logf, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		etcdErr = err
		return
	}
	etcdCmd = exec.Command(bin,
		"--name=rwdiag-test",
		"--data-dir="+filepath.Join(dir, "data"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=rwdiag-test="+peerURL,
		"--log-level=warn",
	)
	etcdCmd.Stdout, etcdCmd.Stderr = logf, logf
	etcdCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	began := time.Now()
	if err := etcdCmd.Start(); err != nil {
		etcdErr = fmt.Errorf("start etcd: %w", err)
		return
	}
	for time.Since(began) < 30*time.Second {
		resp, err := http.Get(etcdURL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				EtcdStartup = time.Since(began)
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	etcdErr = fmt.Errorf("etcd not healthy after 30s; log tail:\n%s", tail(filepath.Join(dir, "etcd.log"), 20))
}

// auditPolicy logs every request at level Metadata once answered (and when
// a long-running one, a log stream, starts).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`

// Namespace creates a namespace and its "default" ServiceAccount (no
// controller makes it here, and pods need it).
func (h *Harness) Namespace(t testing.TB, name string) {
	t.Helper()
	ctx := context.Background()
	_, err := h.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	_, err = h.Client.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create service account %s/default: %v", name, err)
	}
}

var names struct {
	sync.Mutex
	used map[string]int
}

// UniqueName is base the first time, then base-2, base-3, ...: namespaces
// are never deleted here (no namespace controller), so a test run again in
// the same binary (-test.count) needs new ones.
func UniqueName(base string) string {
	names.Lock()
	defer names.Unlock()
	if names.used == nil {
		names.used = map[string]int{}
	}
	names.used[base]++
	if n := names.used[base]; n > 1 {
		return fmt.Sprintf("%s-%d", base, n)
	}
	return base
}

// freePort asks the kernel for a free TCP port on host.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last n lines of a file, for failure messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// CA is a certificate authority for the harness's certificates.
type CA struct {
	CertPEM []byte
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
}

type certSpec struct {
	cn     string
	orgs   []string
	hosts  []string // IPs or DNS names
	server bool
}

func newCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "rwdiag-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert: cert, key: key}, nil
}

var serialNumber struct {
	sync.Mutex
	n int64
}

// Sign issues a serving certificate for hosts (IPs or DNS names), e.g. for
// a kubelet stand-in.
func (ca *CA) Sign(hosts ...string) (certPEM, keyPEM []byte, err error) {
	return ca.issue(certSpec{cn: hosts[0], hosts: hosts, server: true})
}

func (ca *CA) issue(s certSpec) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serialNumber.Lock()
	serialNumber.n++
	sn := serialNumber.n + 1
	serialNumber.Unlock()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(sn),
		Subject:      pkix.Name{CommonName: s.cn, Organization: s.orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if s.server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	for _, h := range s.hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// newKeyPair is the service-account signing key and its public half.
func newKeyPair() (keyPEM, pubPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pder, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), nil
}
