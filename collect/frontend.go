package collect

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rwdiag/rwdiag/bundle"
)

// The SQL ports to try when no port is named: the operator's and helm
// chart's, then the binary's default (facts §1.3, the 4567 vs 4566 trap).
const (
	installerSQLPort = 4567
	binarySQLPort    = 4566
)

// sqlPortNames name the frontend's SQL port: the operator's, then helm's.
var sqlPortNames = []string{"service", "svc"}

// sqlTarget is a DSN to try and how it was found.
type sqlTarget struct {
	dsn string
	how string
}

// frontendPods are the pods that serve SQL.
func frontendPods(pods []*corev1.Pod) []*corev1.Pod {
	var fe []*corev1.Pod
	for _, p := range pods {
		if c := bundle.Component(p.Labels); c == "frontend" || c == "standalone" {
			fe = append(fe, p)
		}
	}
	return fe
}

// sqlTargets lists the DSNs to try, in order: the frontend Service on the
// port the pods name service or svc (or the Service's own port of that
// name), then 4567, then 4566; without a Service, the first frontend pod's IP.
func sqlTargets(ns string, pods []*corev1.Pod, services []corev1.Service, connectTimeout int) []sqlTarget {
	fe := frontendPods(pods)
	if len(fe) == 0 {
		return nil
	}
	containerPort, portName := int32(0), ""
	for _, name := range sqlPortNames {
		if p, ok := namedPort(fe[0], name); ok {
			containerPort, portName = p, name
			break
		}
	}
	var ports []int32
	addPort := func(p int32) {
		if p > 0 && !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	host, how := "", ""
	for _, svc := range services {
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(fe[0].Labels)) {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			switch {
			case containerPort > 0 && sp.TargetPort.IntValue() == int(containerPort),
				portName != "" && sp.TargetPort.String() == portName,
				slices.Contains(sqlPortNames, sp.Name):
				addPort(sp.Port)
			}
		}
		if len(ports) > 0 || host == "" {
			host, how = svc.Name+"."+ns+".svc", "the frontend Service "+svc.Name
		}
		if len(ports) > 0 {
			break
		}
	}
	if host == "" {
		if fe[0].Status.PodIP == "" {
			return nil
		}
		host, how = fe[0].Status.PodIP, "the frontend pod "+fe[0].Name+"'s IP"
		addPort(containerPort)
	}
	addPort(installerSQLPort)
	addPort(binarySQLPort)
	var ts []sqlTarget
	for _, p := range ports {
		u := url.URL{Scheme: "postgres", User: url.User("root"), Host: fmt.Sprintf("%s:%d", host, p), Path: "/dev",
			RawQuery: fmt.Sprintf("connect_timeout=%d", connectTimeout)}
		ts = append(ts, sqlTarget{dsn: u.String(), how: how})
	}
	return ts
}

// collectSQL runs the SQL collection against --sql-dsn, or against the
// frontend it finds. A discovered address needs a network path to the
// cluster's services, which a laptop often lacks: the error says what to do.
func (c *collector) collectSQL(pods []*corev1.Pod) error {
	targets := []sqlTarget{{dsn: c.opts.SQLDSN, how: "--sql-dsn"}}
	if c.opts.SQLDSN == "" {
		var services []corev1.Service
		items, err := c.listAll(podsGVR.GroupVersion().WithResource("services"), c.kube.namespace, "")
		if err == nil {
			for _, it := range items {
				var svc corev1.Service
				if runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &svc) == nil {
					services = append(services, svc)
				}
			}
		}
		// connect_timeout=0 would mean none: at least a second.
		targets = sqlTargets(c.kube.namespace, pods, services, max(1, int(math.Ceil(c.opts.CallTimeout.Seconds()))))
		if len(targets) == 0 {
			return fmt.Errorf("no --sql-dsn given and no frontend pod found to connect to")
		}
	}
	var errs []string
	for _, t := range targets {
		if c.hard.Err() != nil {
			break
		}
		version, err := CollectSQL(c.hard, SQLOptions{DSN: t.dsn, StatementTimeout: c.opts.CallTimeout, Redactor: c.red}, c.w)
		if err == nil {
			c.mu.Lock()
			c.sqlVersion = version
			c.mu.Unlock()
			return nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v", redactDSN(t.dsn), err))
	}
	msg := "could not connect: " + strings.Join(errs, "; ")
	if c.opts.SQLDSN == "" {
		svc := ""
		if i := strings.Index(targets[0].how, "Service "); i >= 0 {
			svc = targets[0].how[i+len("Service "):]
		}
		msg += fmt.Sprintf(" (no --sql-dsn given, so %s was tried: it is reachable only from inside the cluster or over a VPN", targets[0].how)
		if svc != "" {
			msg += fmt.Sprintf("; from elsewhere run `kubectl port-forward -n %s svc/%s %d` and pass --sql-dsn postgres://root@localhost:%d/dev",
				c.kube.namespace, svc, installerSQLPort, installerSQLPort)
		}
		msg += ")"
	}
	return fmt.Errorf("%s", msg)
}

// redactDSN prints a DSN without its password (in the userinfo, or a
// query parameter whose name looks secret).
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		// key=value form: drop password=...
		var kept []string
		for _, f := range strings.Fields(dsn) {
			if !strings.HasPrefix(strings.ToLower(f), "password=") {
				kept = append(kept, f)
			}
		}
		return strings.Join(kept, " ")
	}
	var keep []string
	for k := range u.Query() {
		if !looksSecret(k) {
			keep = append(keep, k)
		}
	}
	return redactURL(u, keep...)
}
