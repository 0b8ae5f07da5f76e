package collect

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/kubectl/pkg/describe"

	"github.com/rwdiag/rwdiag/bundle"
)

// describePod writes `kubectl describe pod` text, made by kubectl's own
// describer: the pod and its events, as a person reads them.
func (c *collector) describePod(p *corev1.Pod) error {
	ns := c.kube.namespace
	d := &describe.PodDescriber{Interface: c.kube.describe}
	var text string
	err := c.call("describe pod "+p.Name, func(ctx context.Context) error {
		// The describers take no context: the describe client's HTTP timeout
		// bounds their requests, and an interrupted run stops waiting here.
		type answer struct {
			text string
			err  error
		}
		ch := make(chan answer, 1)
		go func() {
			t, err := d.Describe(ns, p.Name, describe.DescriberSettings{ShowEvents: true, ChunkSize: 500})
			ch <- answer{t, err}
		}()
		select {
		case a := <-ch:
			text = a.text
			return a.err
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w (the pod was deleted after it was listed)", err)
	case err != nil:
		return fmt.Errorf("%s", explain(err, "get", "pods"))
	}
	return c.writeData(bundle.DescribePath(p.Name), fmt.Sprintf("kubectl describe pod %s -n %s", p.Name, ns), []byte(text), redactText, nil)
}
