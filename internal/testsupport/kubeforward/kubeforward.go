// Package kubeforward forwards a port of this machine to a pod's port
// through the API server, the way tests reach agents inside a cluster over
// any protocol (the API server's proxy carries HTTP/1 only, so not gRPC).
package kubeforward

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// Forward forwards 127.0.0.1:local to port of pod ns/pod until stop is
// called; local 0 lets the forwarder choose, and the port it listens on is
// returned.
func Forward(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, ns, pod string, local, port int) (int, func(), error) {
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return 0, nil, err
	}
	url := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	stopCh, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("%d:%d", local, port)}, stopCh, ready, io.Discard, io.Discard)
	if err != nil {
		return 0, nil, err
	}
	failed := make(chan error, 1)
	go func() { failed <- fw.ForwardPorts() }()
	stop := func() { close(stopCh) }
	select {
	case <-ready:
	case err := <-failed:
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s: %w", ns, pod, err)
	case <-ctx.Done():
		stop()
		return 0, nil, ctx.Err()
	}
	ports, err := fw.GetPorts()
	if err != nil {
		stop()
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s: %w", ns, pod, err)
	}
	if len(ports) != 1 {
		stop()
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s: %d ports forwarded, want 1", ns, pod, len(ports))
	}
	return int(ports[0].Local), stop, nil
}
