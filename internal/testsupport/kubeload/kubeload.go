// Package kubeload makes calls to an agent on a cluster through the API
// server's proxy to its Service, and drives them until the agent's
// autoscaler gives it more pods: the CPU load a test needs to see a
// HorizontalPodAutoscaler act on what the agent's pods use.
package kubeload

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/steady"
)

// callers is how many callers call at once: enough to keep an agent's pod
// busy through the API server's proxy.
const callers = 8

// ServiceClient is an A2A SDK client of the agent behind the Service called
// name in namespace ns, on port, through the API server's proxy, which
// sends each call to a pod it picks, as an ingress or gateway does.
func ServiceClient(ctx context.Context, cfg *rest.Config, ns, name string, port int) (*a2aclient.Client, error) {
	endpoint, err := url.JoinPath(cfg.Host, cfg.APIPath, "api/v1/namespaces", ns, "services", "http:"+name+":"+strconv.Itoa(port), "proxy")
	if err != nil {
		return nil, err
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	return steady.Client(ctx, endpoint+"/", &http.Client{Transport: transport, Timeout: 30 * time.Second})
}

// UntilScaled makes echo calls, from several callers at once, to the agent
// behind the Service called name in namespace ns, on port, through the API
// server's proxy, until the agent's Deployment (called name too) asks for
// at least want pods. It returns how many calls were made, and an error
// when ctx ends first.
func UntilScaled(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, ns, name string, port int, want int32) (int64, error) {
	client, err := ServiceClient(ctx, cfg, ns, name, port)
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
