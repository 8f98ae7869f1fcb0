package container

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/go-connections/tlsconfig"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// engineAddress is the engine a Runtime talks to and how it was chosen, so
// that an unreachable engine is reported with what to change.
type engineAddress struct {
	Host   string
	Source string
}

func (a engineAddress) String() string { return a.Host + " (" + a.Source + ")" }

// chooseEngine picks the engine address: the option, then DOCKER_HOST, then
// the platform default.
func chooseEngine(o Options) engineAddress {
	switch {
	case o.Host != "":
		return engineAddress{Host: o.Host, Source: "set by the provider's container host"}
	case os.Getenv(client.EnvOverrideHost) != "":
		return engineAddress{Host: os.Getenv(client.EnvOverrideHost), Source: "set by DOCKER_HOST"}
	default:
		return engineAddress{Host: client.DefaultDockerHost, Source: "the platform default; set the provider's container host or DOCKER_HOST to use another"}
	}
}

// connect builds an engine client. API version negotiation stays on (the
// client's default) so one client speaks to old Docker engines and to
// Podman's Docker-compatible API alike.
func connect(o Options, addr engineAddress, ping *pingAnswer) (*client.Client, error) {
	scheme, _, _ := strings.Cut(addr.Host, "://")
	opts := []client.Opt{client.WithHTTPResponseHook(ping.observe)}
	switch scheme {
	case "unix", "npipe":
		opts = append(opts, client.WithHost(addr.Host))
	case "tcp", "http", "https":
		tlsOpt, err := tlsOption(o)
		if err != nil {
			return nil, err
		}
		// The TLS option replaces the HTTP client, so it must come before
		// the host, which configures that client's transport.
		opts = append(opts, tlsOpt, client.WithHost(addr.Host))
	case "ssh":
		opts = append(opts, relayOptions(addr.Host)...)
	default:
		return nil, fmt.Errorf("container engine host %s: scheme %q is not one of unix://, tcp:// or ssh://", addr, scheme)
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("container engine host %s: %w", addr, err)
	}
	return cli, nil
}

// pingAnswer is what the address answered to the engine client's ping, the
// first request it makes. Docker and Podman both answer /_ping with an
// Api-Version header; an address that does not (a web server, a proxy's
// login page) is no engine API, and the errors the client would report for
// it (a 404 read as "no such container", an HTML body quoted) mislead.
type pingAnswer struct {
	mu          sync.Mutex
	seen        bool
	method      string
	status      string
	contentType string
	apiVersion  string
}

// observe records the answer to a /_ping request; the client pings with
// HEAD and falls back to GET, so the last answer is the one it acted on.
func (p *pingAnswer) observe(resp *http.Response) {
	if resp.Request == nil || path.Base(resp.Request.URL.Path) != "_ping" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = true
	p.method = resp.Request.Method
	p.status = resp.Status
	p.contentType = resp.Header.Get("Content-Type")
	p.apiVersion = resp.Header.Get("Api-Version")
}

// notEngine says why the address is not an engine API, or returns "" when
// its ping answer was an engine's (or there was none: a connection that
// failed is reported as such).
func (p *pingAnswer) notEngine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.seen || p.apiVersion != "" {
		return ""
	}
	contentType := p.contentType
	if contentType == "" {
		contentType = "no content type"
	}
	return fmt.Sprintf("%s /_ping answered %s (%s) without the Api-Version header Docker and Podman send", p.method, p.status, contentType)
}

// relayOptions reach the engine at host through the docker CLI's relay;
// the placeholder host only names the HTTP requests.
func relayOptions(host string) []client.Opt {
	return []client.Opt{
		client.WithHost("http://" + client.DummyHost),
		client.WithHTTPClient(&http.Client{
			Transport:     &http.Transport{DialContext: dialThroughCLI(host)},
			CheckRedirect: client.CheckRedirect,
		}),
	}
}

// tlsOption configures TLS from the options when any TLS file is named,
// otherwise from DOCKER_CERT_PATH and DOCKER_TLS_VERIFY like the docker CLI.
func tlsOption(o Options) (client.Opt, error) {
	if o.TLSCACert == "" && o.TLSCert == "" && o.TLSKey == "" {
		if o.TLSVerify {
			cfg := &tls.Config{MinVersion: tls.VersionTLS12}
			return client.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, CheckRedirect: client.CheckRedirect}), nil
		}
		return client.WithTLSClientConfigFromEnv(), nil
	}
	cfg, err := tlsconfig.Client(tlsconfig.Options{
		CAFile:             o.TLSCACert,
		CertFile:           o.TLSCert,
		KeyFile:            o.TLSKey,
		ExclusiveRootPools: true,
		InsecureSkipVerify: !o.TLSVerify,
		MinVersion:         tls.VersionTLS12,
	})
	if err != nil {
		return nil, fmt.Errorf("container engine TLS settings (tls_ca_cert, tls_cert, tls_key): %w", err)
	}
	return client.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, CheckRedirect: client.CheckRedirect}), nil
}

// engineError turns an engine failure into a runtime error that names the
// engine and what the operator can do.
func (r *Runtime) engineError(op, id string, err error) error {
	var (
		rerr      *agentruntime.Error
		untrusted *tls.CertificateVerificationError
		relay     *relayError
	)
	switch {
	case errors.As(err, &rerr):
		return err
	case errors.As(err, &untrusted):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"the container engine at %s presented a TLS certificate that does not verify: set tls_ca_cert to the CA that signed it, and name the engine by a host its certificate lists", r.engine)
	case tlsRefused(err):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"the container engine at %s refused the TLS handshake: set tls_cert and tls_key to a client certificate signed by a CA the engine trusts", r.engine)
	case errors.As(err, &relay):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"the docker CLI could not reach the container engine at %s: check that `docker --host %s info` works from this machine (ssh key, known_hosts, docker on the remote)", r.engine, r.engine.Host)
	case client.IsErrConnectionFailed(err):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"cannot reach the container engine at %s: start the engine, or point the provider at one that runs (Docker or Podman socket)", r.engine)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"the container engine at %s did not answer in time", r.engine.Host)
	case cerrdefs.IsNotFound(err):
		return agentruntime.Errorf(agentruntime.KindNotFound, op, id, err,
			"no container for the agent on the engine at %s (never provisioned, or removed outside Terraform); apply again to recreate it", r.engine.Host)
	default:
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "container engine at %s", r.engine.Host)
	}
}

// tlsRefused reports whether the engine ended the TLS handshake with an
// alert, as it does for a missing or untrusted client certificate. Go's TLS
// client reports a received alert only as a "remote error" operation.
func tlsRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}
