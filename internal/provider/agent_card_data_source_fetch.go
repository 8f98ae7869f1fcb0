package provider

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Fetch defaults: a card is small and served from memory, so a slow answer
// means a sick agent, and a plan should not wait long on it.
const (
	defaultRequestTimeout = 10 * time.Second
	defaultAttempts       = 3
	defaultMinRetryDelay  = 200 * time.Millisecond
	defaultMaxRetryDelay  = 2 * time.Second
)

// cardFetch is everything needed to fetch one card.
type cardFetch struct {
	cardURL   string
	shownURL  string // cardURL without any password, for logs and errors
	headers   map[string]string
	timeout   time.Duration
	attempts  int
	minDelay  time.Duration
	maxDelay  time.Duration
	caCertPEM string
	insecure  bool
}

// cardURLFor turns an agent's base URL into its card URL. A URL that
// already names a card (any agent-card.json, or anything under
// /.well-known/, where older agents publish agent.json) is kept as is.
func cardURLFor(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(u.Path, "agent-card.json") || strings.Contains(u.Path, "/.well-known/") {
		return u, nil
	}
	u.Path = strings.TrimRight(u.Path, "/") + card.WellKnownPath
	u.RawPath = ""
	return u, nil
}

// fetched is a card body and the URL it came from, after any redirects.
type fetched struct {
	body []byte
	url  *url.URL
}

// fetch gets the card body, retrying what can succeed on a later try and
// reading no more than card.MaxCardBytes.
func (f cardFetch) fetch(ctx context.Context) (fetched, error) {
	client, err := f.client(ctx)
	if err != nil {
		return fetched{}, err
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, f.cardURL, nil)
	if err != nil {
		return fetched{}, fmt.Errorf("cannot build a request for %s: %w", f.shownURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "terraform-provider-a2a")
	for name, value := range f.headers {
		req.Header.Set(name, value)
	}
	names := make([]string, 0, len(f.headers))
	for name := range f.headers {
		names = append(names, name)
	}
	tflog.Debug(ctx, "fetching agent card", map[string]any{
		"url": f.shownURL, "attempts": f.attempts, "request_header_names": names,
	})

	resp, err := client.Do(req)
	if err != nil {
		return fetched{}, f.explain(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fetched{}, fmt.Errorf("%s answered %s, not 200 OK: check that url is the agent's base URL or its card URL, and that request_headers or request_headers_from_env carry any credentials it needs",
			f.shownURL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, card.MaxCardBytes+1))
	if err != nil {
		return fetched{}, fmt.Errorf("reading the agent card from %s failed: %w", f.shownURL, err)
	}
	if len(body) > card.MaxCardBytes {
		return fetched{}, fmt.Errorf("the agent card at %s is larger than %d bytes, the most this provider reads from an untrusted source: check that url points at an agent card",
			f.shownURL, card.MaxCardBytes)
	}
	return fetched{body: body, url: resp.Request.URL}, nil
}

// maxRedirects is as many redirects as Go's client follows by default.
const maxRedirects = 10

// checkRedirect follows a redirect like Go's client does, but drops every
// configured request header when the redirect leaves the origin (scheme,
// host and port) the request was made to: those headers are meant for that
// agent, and Go itself strips only Authorization and Cookie.
func (f cardFetch) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if sameOrigin(req.URL, via[0].URL) {
		return nil
	}
	for name := range f.headers {
		req.Header.Del(name)
	}
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Host == b.Host
}

// explain turns a transport failure into an error an operator can act on.
func (f cardFetch) explain(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Timeout() {
		return fmt.Errorf("timeout: %s did not answer within request_timeout_ms (%d ms) after %d attempt(s); raise request_timeout_ms or check the agent: %w",
			f.shownURL, f.timeout.Milliseconds(), f.attempts, err)
	}
	return fmt.Errorf("fetching the agent card from %s failed: %w", f.shownURL, err)
}

func (f cardFetch) client(ctx context.Context) (*retryablehttp.Client, error) {
	tlsConfig, err := agentTLS(f.caCertPEM, f.insecure)
	if err != nil {
		return nil, err
	}
	transport := cleanhttp.DefaultPooledTransport()
	transport.TLSClientConfig = tlsConfig

	return &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: transport, Timeout: f.timeout, CheckRedirect: f.checkRedirect},
		Logger:       tflogLogger{ctx: ctx},
		RetryWaitMin: f.minDelay,
		RetryWaitMax: f.maxDelay,
		RetryMax:     f.attempts - 1,
		CheckRetry:   retryCardFetch,
		Backoff:      cappedBackoff,
	}, nil
}

// agentTLS is the TLS configuration for reaching an agent: the system's
// roots and those of caCertPEM, or no verification at all when the
// operator asks for none.
func agentTLS(caCertPEM string, insecure bool) (*tls.Config, error) {
	config := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure} //nolint:gosec // insecure is the operator's explicit choice
	if caCertPEM == "" {
		return config, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM([]byte(caCertPEM)) {
		return nil, errors.New("ca_cert_pem holds no PEM certificate: give the CA certificate(s) that signed the agent's TLS certificate, PEM-encoded")
	}
	config.RootCAs = pool
	return config, nil
}

// retryCardFetch retries what a later attempt can fix: connection failures
// (but not certificate or URL errors), 429 and 5xx. Any other status is the
// server's final word and is not retried.
func retryCardFetch(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return true, fmt.Errorf("the server answered %s", resp.Status)
	}
	return false, nil
}

// backoff waits exponentially between min and max delay, honouring a
// Retry-After on 429 and 503, but never longer than max_delay_ms: a server
// asking for an hour must not stall a plan for an hour.
func cappedBackoff(minDelay, maxDelay time.Duration, attempt int, resp *http.Response) time.Duration {
	return min(retryablehttp.DefaultBackoff(minDelay, maxDelay, attempt, resp), maxDelay)
}

// tflogLogger routes the retry client's logs to Terraform's log. The client
// logs method, redacted URL, status and errors, never request headers. Its
// errors are logged as warnings: an attempt that is retried is not yet a
// failure, and a final failure reaches the operator as a diagnostic.
type tflogLogger struct{ ctx context.Context }

func (l tflogLogger) Error(msg string, kv ...any) { tflog.Warn(l.ctx, msg, fields(kv)) }
func (l tflogLogger) Info(msg string, kv ...any)  { tflog.Info(l.ctx, msg, fields(kv)) }
func (l tflogLogger) Debug(msg string, kv ...any) { tflog.Debug(l.ctx, msg, fields(kv)) }
func (l tflogLogger) Warn(msg string, kv ...any)  { tflog.Warn(l.ctx, msg, fields(kv)) }

func fields(kv []any) map[string]any {
	out := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return out
}
