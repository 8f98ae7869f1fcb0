// Package kubeload drives calls at an agent on a cluster until its
// autoscaler gives it more pods: the CPU load a test needs to see a
// HorizontalPodAutoscaler act on what the agent's pods use.
package kubeload

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/steady"
)

// callers is how many callers call at once: enough to keep an agent's pod
// busy through the API server's proxy.
const callers = 8

// UntilScaled makes echo calls, from several callers at once, to the agent
// behind the Service called name in namespace ns, on port, through the API
// server's proxy, until the agent's Deployment (called name too) asks for
// at least want pods. It returns how many calls were made, and an error
// when ctx ends first.
func UntilScaled(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, ns, name string, port int, want int32) (int64, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return 0, err
	}
	base, err := url.JoinPath(cfg.Host, "api/v1/namespaces", ns, "services", "http:"+name+":"+strconv.Itoa(port), "proxy")
	if err != nil {
		return 0, err
	}
	client, err := steady.Client(ctx, base+"/", hc)
	if err != nil {
		return 0, err
	}
	echo := steady.Echo(client)
	loadCtx, stop := context.WithCancel(ctx)
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for loadCtx.Err() == nil {
				// A call refused while pods come and go is load all the same.
				_ = echo(loadCtx, int(calls.Add(1)))
			}
		})
	}
	defer func() {
		stop()
		wg.Wait()
	}()
	for {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return calls.Load(), err
		}
		if *d.Spec.Replicas >= want {
			return calls.Load(), nil
		}
		select {
		case <-ctx.Done():
			return calls.Load(), fmt.Errorf("after %d calls, the autoscaler has the agent at %d pods, not %d: %w", calls.Load(), *d.Spec.Replicas, want, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}
