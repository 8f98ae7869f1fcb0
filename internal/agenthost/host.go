package agenthost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"golang.org/x/net/netutil"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// telemetryFlushTimeout bounds sending what telemetry still holds at
// shutdown, so a collector that is down cannot keep the host from exiting.
const telemetryFlushTimeout = 5 * time.Second

// DefaultShutdownTimeout bounds a graceful shutdown: in-flight calls get this
// long to finish before their connections are closed.
const DefaultShutdownTimeout = 3 * time.Second

const (
	// maxRequestBytes bounds a JSON-RPC request body.
	maxRequestBytes = 8 << 20
	// readHeaderTimeout stops clients that open connections and never finish
	// sending headers from holding them forever. No write timeout: streams
	// stay open as long as their task runs.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection nobody uses: long enough
	// for a client polling a task to reuse it, short enough that idle
	// connections do not keep maxConnections taken.
	idleTimeout = 30 * time.Second
	// maxConnections bounds the connections open at once, each of which
	// holds memory and a file descriptor. Further clients wait to be
	// accepted until one closes.
	maxConnections = 256
	// DefaultBodyReadTimeout cuts clients that stall while sending a
	// request body, as readHeaderTimeout does for headers.
	DefaultBodyReadTimeout = 10 * time.Second
)

// Options tune a host. The zero value is usable.
type Options struct {
	// Log receives the startup line, one line per request and warnings from
	// the A2A SDK. Nil discards them.
	Log io.Writer
	// ShutdownTimeout bounds graceful shutdown in Serve; zero means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// BodyReadTimeout bounds reading one request body; zero means
	// DefaultBodyReadTimeout.
	BodyReadTimeout time.Duration
	// Redact hides the values of expanded variables in the log and in
	// errors; nil hides nothing.
	Redact *redactor
	// Version is the host's release, which telemetry reports as the
	// service's version.
	Version string
}

// Host is a running agent host: the agent card, readable by 1.0 and 0.3
// clients, at the well-known path and A2A JSON-RPC at the advertised
// endpoint.
type Host struct {
	server   *http.Server
	listener net.Listener
	tasks    taskStorage
	endpoint string
	cardURL  string
	logger   *slog.Logger
	done     chan struct{}
	serveErr error
	activity activity
	// telemetry is nil unless the config has a [telemetry] table.
	telemetry *telemetry
	routes    *routes
	budget    *budget
}

// configError marks a problem with the agent config (as opposed to the
// machine, such as a port in use), so Main can exit with the usage status.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// Start listens where cfg says, derives (and, with a signing key, signs) the
// card for the advertised endpoint, and serves until Shutdown. With no port
// configured it listens on a free one and advertises that. ctx bounds
// start-up only; stop the host with Shutdown.
func Start(ctx context.Context, cfg *agentconfig.Config, opts Options) (*Host, error) {
	agent, err := newAgent(cfg, opts.Redact)
	if err != nil {
		return nil, &configError{err}
	}
	if cfg.Server.AdvertisedURL != "" {
		if _, err := parseEndpoint(cfg.Server.AdvertisedURL); err != nil {
			return nil, &configError{err}
		}
	}
	auth, err := newAuthenticator(ctx, cfg)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(opts.Redact.Writer(logOutput(opts)), nil))
	tasks, err := openTaskStorage(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(cfg.ListenHost(), strconv.Itoa(cfg.Server.HTTPPort)))
	if err != nil {
		_ = tasks.close(ctx)
		return nil, fmt.Errorf("listen for agent %s: %w", cfg.ID(), err)
	}
	tel, err := startTelemetry(ctx, cfg, opts.Version, tasks, logger)
	if err != nil {
		_ = ln.Close()
		_ = tasks.close(ctx)
		return nil, err
	}
	h, err := newHost(cfg, agent, auth, tasks, ln, logger, opts)
	if err != nil {
		_ = tel.shutdown(ctx)
		_ = ln.Close()
		_ = tasks.close(ctx)
		return nil, &configError{err}
	}
	h.instrument(tel)
	go h.serve()
	h.logger.Info("agent host started", "agent", cfg.ID(), "listen", ln.Addr().String(), "endpoint", h.endpoint, "card", h.cardURL)
	return h, nil
}

// logOutput is where the host writes its log.
func logOutput(opts Options) io.Writer {
	if opts.Log == nil {
		return io.Discard
	}
	return opts.Log
}

func newHost(cfg *agentconfig.Config, agent a2asrv.AgentExecutor, auth authenticator, tasks taskStorage, ln net.Listener, logger *slog.Logger, opts Options) (*Host, error) {
	out := opts.Redact.Writer(logOutput(opts))

	// The endpoint is worked out as internal/card does offline, with the
	// port actually bound, so a host on a free port advertises that one.
	bound := *cfg
	bound.Server.HTTPPort = ln.Addr().(*net.TCPAddr).Port
	endpoint := card.EndpointFor(&bound)
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	doc, err := publishedCard(cfg, endpoint)
	if err != nil {
		return nil, err
	}
	cardURL := card.CardURL(endpoint)

	caps := capabilitiesOf(cfg)
	handlerOpts := []a2asrv.RequestHandlerOption{
		a2asrv.WithCapabilityChecks(&caps),
		a2asrv.WithTaskStore(tasks),
		a2asrv.WithCallInterceptors(callerScope{}, rpcMethodRecorder{}, clientLink{}, idCheck{}, newSkillScopes(cfg), terminalSubscriptions{store: tasks}, elsewhereGuard{store: tasks}),
		a2asrv.WithLogger(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	}
	var extendedDoc []byte
	if caps.ExtendedAgentCard {
		// Every call passes the gate first, so only an authenticated caller
		// reaches GetExtendedAgentCard. The SDK answers it over gRPC and
		// 0.3; over JSON-RPC and HTTP+JSON 1.0 the host answers with the
		// card encoded as the public one is, since the SDK writes security
		// requirements in a form the 1.0 schema does not take.
		extended, err := extendedCard(cfg, endpoint)
		if err != nil {
			return nil, err
		}
		if extendedDoc, err = card.MarshalCard(extended, card.Strict10); err != nil {
			return nil, fmt.Errorf("encode the extended agent card: %w", err)
		}
		handlerOpts = append(handlerOpts, a2asrv.WithExtendedAgentCard(extended))
	}
	handler := a2asrv.NewHandler(tracked{AgentExecutor: agent, store: tasks}, handlerOpts...)
	followAcrossHosts(handler, tasks)
	bodyTimeout := opts.BodyReadTimeout
	if bodyTimeout <= 0 {
		bodyTimeout = DefaultBodyReadTimeout
	}
	gate := newCallGate(auth, bodyTimeout)
	routes := newRoutes(u.Path, newCardHandler(doc, time.Now()), cfg.Server.ServedBindings(), handler, gate, extendedDoc)

	// gRPC calls arrive as HTTP/2 without TLS (h2c) on the same port as
	// the other bindings.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	h := &Host{
		server: &http.Server{
			Protocols:         &protocols,
			ReadHeaderTimeout: readHeaderTimeout,
			IdleTimeout:       idleTimeout,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		},
		listener: netutil.LimitListener(ln, maxConnections),
		tasks:    tasks,
		endpoint: endpoint,
		cardURL:  cardURL,
		logger:   logger,
		done:     make(chan struct{}),
		routes:   routes,
		budget:   gate.budget,
	}
	h.server.Handler = h.activity.track(logRequests(logger, routes))
	return h, nil
}

// publishedCard derives the card for endpoint, signs it when the config
// holds a signing key, and encodes it the way internal/card publishes (and
// signs) cards: once, in the encoding the config asks for, so the card is
// served as exactly the bytes signed.
func publishedCard(cfg *agentconfig.Config, endpoint string) ([]byte, error) {
	c, err := card.Derive(cfg, endpoint)
	if err != nil {
		return nil, fmt.Errorf("derive the agent card: %w", err)
	}
	enc := card.EncodingFor(cfg)
	if cfg.Card.SigningKey != "" {
		// An empty key id lets Sign name the key by its RFC 7638 thumbprint.
		if err := card.Sign(c, []byte(cfg.Card.SigningKey), "", enc); err != nil {
			return nil, fmt.Errorf("sign the agent card with [card] signing_key: %w", err)
		}
	}
	raw, err := card.MarshalCard(c, enc)
	if err != nil {
		return nil, fmt.Errorf("encode the agent card: %w", err)
	}
	return raw, nil
}

// extendedCard is the card with every skill, signed as the public one is.
func extendedCard(cfg *agentconfig.Config, endpoint string) (*a2a.AgentCard, error) {
	c, err := card.DeriveExtended(cfg, endpoint)
	if err != nil {
		return nil, fmt.Errorf("derive the extended agent card: %w", err)
	}
	if cfg.Card.SigningKey != "" {
		if err := card.Sign(c, []byte(cfg.Card.SigningKey), "", card.Strict10); err != nil {
			return nil, fmt.Errorf("sign the extended agent card with [card] signing_key: %w", err)
		}
	}
	return c, nil
}

// routes maps requests to handlers: the card at the well-known path and at
// the path clients before 0.3 use (each also under the endpoint's path,
// where SDK resolvers look for it when the endpoint has one), gRPC calls
// by their content type, JSON-RPC at the endpoint's path and HTTP+JSON
// below it, each binding only when the agent serves it. Everything else is
// 404. Exact matching keeps an advertised path from being read as a
// ServeMux pattern.
type routes struct {
	rpcPath    string
	restPrefix string
	cardPaths  map[string]bool
	card       http.Handler
	// rpc, rest and grpc are nil for a binding the agent does not serve.
	rpc, rest, grpc http.Handler
}

func newRoutes(endpointPath string, cardHandler http.Handler, bindings []string, handler a2asrv.RequestHandler, gate *callGate, extended []byte) *routes {
	if endpointPath == "" {
		endpointPath = "/"
	}
	cardPaths := map[string]bool{}
	for _, p := range []string{card.WellKnownPath, card.LegacyWellKnownPath} {
		cardPaths[p] = true
		cardPaths[path.Join(endpointPath, p)] = true
	}
	rt := &routes{
		rpcPath:    endpointPath,
		restPrefix: strings.TrimSuffix(endpointPath, "/"),
		cardPaths:  cardPaths,
		card:       cardHandler,
	}
	for _, b := range bindings {
		switch b {
		case agentconfig.BindingJSONRPC:
			rt.rpc = newRPCEndpoint(handler, gate, extended)
		case agentconfig.BindingHTTPJSON:
			rt.rest = newRESTEndpoint(handler, gate, extended)
		case agentconfig.BindingGRPC:
			rt.grpc = newLazyHandler(func() http.Handler { return newGRPCEndpoint(handler, gate) })
		}
	}
	return rt
}

func (rt *routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case rt.cardPaths[r.URL.Path]:
		rt.card.ServeHTTP(w, r)
	case isGRPC(r):
		serveIf(rt.grpc, w, r)
	case r.URL.Path == rt.rpcPath:
		serveIf(rt.rpc, w, r)
	case strings.HasPrefix(r.URL.Path, rt.restPrefix+"/"):
		if rt.rest == nil {
			http.NotFound(w, r)
			return
		}
		// The binding's handlers know their paths relative to the
		// endpoint's.
		rel := r.Clone(r.Context())
		rel.URL.Path = strings.TrimPrefix(r.URL.Path, rt.restPrefix)
		rel.URL.RawPath = ""
		rt.rest.ServeHTTP(w, rel)
	default:
		http.NotFound(w, r)
	}
}

// lazyHandler builds its handler at its first request: an agent nobody
// calls over a binding does not pay for that binding's server.
type lazyHandler struct{ get func() http.Handler }

func newLazyHandler(build func() http.Handler) lazyHandler {
	return lazyHandler{get: sync.OnceValue(build)}
}

func (l lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.get().ServeHTTP(w, r) }

// serveIf serves a request with h, or answers 404 when the agent does not
// serve h's binding.
func serveIf(h http.Handler, w http.ResponseWriter, r *http.Request) {
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}

func parseEndpoint(raw string) (*url.URL, error) {
	if err := agentconfig.CheckHTTPURL("advertised URL", raw, "http://127.0.0.1:8080/"); err != nil {
		return nil, err
	}
	return url.Parse(raw)
}

func (h *Host) serve() {
	defer close(h.done)
	if err := h.server.Serve(h.listener); !errors.Is(err, http.ErrServerClosed) {
		h.serveErr = err
	}
}

// Endpoint is the advertised base URL, where JSON-RPC is served.
func (h *Host) Endpoint() string { return h.endpoint }

// CardURL is where the agent card is served.
func (h *Host) CardURL() string { return h.cardURL }

// Shutdown stops accepting calls and lets in-flight ones finish until ctx
// ends; connections still open then (such as long streams) are closed.
func (h *Host) Shutdown(ctx context.Context) error {
	if err := h.server.Shutdown(ctx); err != nil {
		h.logger.Warn("shutdown deadline passed; closing open connections")
		if err := h.server.Close(); err != nil {
			return fmt.Errorf("close agent host: %w", err)
		}
	}
	<-h.done
	// The calls have ended or been cut off, so their spans are about to
	// be; the flush goes before the task store closes, since the task
	// gauge reads it.
	telCtx, cancelTel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlushTimeout)
	defer cancelTel()
	if err := h.telemetry.shutdown(telCtx); err != nil {
		h.logger.Warn(err.Error())
	}
	// The store settles the tasks still worked on even when the calls
	// used up the deadline.
	storeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := h.tasks.close(storeCtx); err != nil {
		h.logger.Warn(err.Error())
	}
	h.logger.Info("agent host stopped")
	return h.serveErr
}

// Serve runs a host until ctx ends, then shuts it down gracefully.
func Serve(ctx context.Context, cfg *agentconfig.Config, opts Options) error {
	h, err := Start(ctx, cfg, opts)
	if err != nil {
		return err
	}
	trimCtx, stopTrimming := context.WithCancel(ctx)
	defer stopTrimming()
	go h.trimWhenIdle(trimCtx)
	select {
	case <-ctx.Done():
	case <-h.done:
		return fmt.Errorf("agent host stopped serving: %w", h.serveErr)
	}
	timeout := opts.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return h.Shutdown(shutdownCtx)
}
