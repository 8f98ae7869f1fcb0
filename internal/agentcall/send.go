// Package agentcall sends one message to an A2A agent over JSON-RPC, with
// the official SDK's transport, and says what is known of a call that did
// not succeed: whether the agent read it, and so whether sending it again
// is safe. A call is retried only while nothing of it has been written.
package agentcall

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
)

// Defaults of a Request that leaves them out.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultAttempts = 4
	minRetryDelay   = 200 * time.Millisecond
	maxRetryDelay   = 2 * time.Second
)

// Request is one message to send.
type Request struct {
	// URL is the agent's JSON-RPC endpoint, as its card's interface for
	// the JSONRPC binding names it.
	URL  string
	Text string
	// Headers go with every attempt, such as an Authorization the agent's
	// card asks for.
	Headers map[string]string
	// Timeout bounds the whole call, attempts and waits between them
	// included; zero means DefaultTimeout.
	Timeout time.Duration
	// Attempts is how many times a call of which nothing was written is
	// tried; zero means DefaultAttempts.
	Attempts int
	// TLS configures HTTPS endpoints; nil means the system's roots.
	TLS *tls.Config
}

// Reply is what the agent answered: a message, or a task it made.
type Reply struct {
	// TaskID and State are the task's; empty when the agent answered
	// with a message.
	TaskID string
	State  a2a.TaskState
	// Text is the text of the reply: the message's text parts, or the
	// task's status message and artifacts.
	Text string
}

// Send sends req.Text to the agent as a user message and returns its
// reply. A call that does not succeed returns an *Error saying whether the
// agent read it. A task the agent made that failed or was rejected is an
// *Error too: the agent answered, but did not do what was asked.
func Send(ctx context.Context, req Request) (Reply, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var seen callFacts
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: seen.wroteSome})
	transport := a2aclient.NewJSONRPCTransport(req.URL, &http.Client{Transport: &retryablehttp.RoundTripper{Client: seen.client(req)}})
	params := a2aclient.ServiceParams{a2a.SvcParamVersion: {string(a2a.Version)}}
	for name, value := range req.Headers {
		params[http.CanonicalHeaderKey(name)] = []string{value}
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(req.Text))
	result, err := transport.SendMessage(ctx, params, &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		return Reply{}, seen.failure(redacted(req.URL), err)
	}
	return replyOf(redacted(req.URL), result)
}

// redacted is raw without any password, for errors.
func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// callFacts is what one call's attempts showed of it: whether the last
// wrote anything, what status it got back, and how many there were.
type callFacts struct {
	mu       sync.Mutex
	wrote    bool
	status   int
	attempts int
}

func (f *callFacts) wroteSome() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wrote = true
}

func (f *callFacts) attempt(int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wrote, f.status = false, 0
	f.attempts++
}

func (f *callFacts) answered(resp *http.Response) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = resp.StatusCode
}

func (f *callFacts) snapshot() (wrote bool, status, attempts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wrote, f.status, f.attempts
}

// client is the retrying HTTP client of one call: it tries again only an
// attempt of which nothing was written, since anything written may have
// been acted on.
func (f *callFacts) client(req Request) *retryablehttp.Client {
	attempts := req.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	// A call is one request, tried again only on a fresh connection: no
	// connection is kept for later, and none outlives the call.
	base := cleanhttp.DefaultClient()
	if req.TLS != nil {
		base.Transport.(*http.Transport).TLSClientConfig = req.TLS
	}
	c := retryablehttp.NewClient()
	c.HTTPClient = base
	c.Logger = nil
	c.RetryMax = attempts - 1
	c.RetryWaitMin, c.RetryWaitMax = minRetryDelay, maxRetryDelay
	c.RequestLogHook = func(_ retryablehttp.Logger, _ *http.Request, n int) { f.attempt(n) }
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if resp != nil {
			f.answered(resp)
		}
		wrote, _, _ := f.snapshot()
		return err != nil && !wrote && ctx.Err() == nil && !permanent(err), nil
	}
	// The error as the transport gave it, for failure to classify.
	c.ErrorHandler = func(resp *http.Response, err error, _ int) (*http.Response, error) { return resp, err }
	return c
}

// permanent says whether a failure before anything was written would
// fail the same way again: a certificate the client does not trust.
func permanent(err error) bool {
	var untrusted *tls.CertificateVerificationError
	return errors.As(err, &untrusted)
}
