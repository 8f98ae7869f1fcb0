package agentcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// peer is a real HTTP server that answers every call with answer, and
// counts the calls it read.
type peer struct {
	*httptest.Server
	calls atomic.Int32
}

func newPeer(t *testing.T, answer http.HandlerFunc) *peer {
	t.Helper()
	p := &peer{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		p.calls.Add(1)
		answer(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// rpcResult answers a JSON-RPC call with result, an event the SDK encodes.
func rpcResult(event a2a.Event) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		result, err := json.Marshal(a2a.StreamResponse{Event: event})
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": rpcID(r), "result": json.RawMessage(result)})
	}
}

// rpcError answers a JSON-RPC call with the error code.
func rpcError(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": rpcID(r), "error": map[string]any{"code": code, "message": "declined by the test peer"}})
	}
}

// rpcID is the id the SDK's requests carry; the peers read only the body
// count, so any id the client accepts will do.
func rpcID(*http.Request) any { return nil }

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { http.Error(w, http.StatusText(code), code) }
}

func task(state a2a.TaskState, text string) *a2a.Task {
	return &a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: state,
		Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))}}
}

// TestSendVerdicts sends to peers that misbehave in each way a call can
// end, and checks what Send concludes and how often the peer was called:
// never more than once for a call it may have read.
func TestSendVerdicts(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	broken := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}
	for _, tc := range []struct {
		name    string
		answer  http.HandlerFunc
		verdict Verdict // zero: success
		reply   string
		says    string
	}{
		{name: "message", answer: rpcResult(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("hello back"))), reply: "hello back"},
		{name: "completed task", answer: rpcResult(task(a2a.TaskStateCompleted, "done")), reply: "done"},
		{name: "HTTP 401", answer: status(http.StatusUnauthorized), verdict: Refused, says: "401"},
		{name: "HTTP 403", answer: status(http.StatusForbidden), verdict: Refused, says: "403"},
		{name: "HTTP 404", answer: status(http.StatusNotFound), verdict: Refused, says: "404"},
		{name: "parse error", answer: rpcError(-32700), verdict: Refused},
		{name: "invalid request", answer: rpcError(-32600), verdict: Refused},
		{name: "method not found", answer: rpcError(-32601), verdict: Refused},
		{name: "invalid params", answer: rpcError(-32602), verdict: Refused},
		{name: "task not found", answer: rpcError(-32001), verdict: Refused},
		{name: "unsupported operation", answer: rpcError(-32004), verdict: Refused},
		{name: "version not supported", answer: rpcError(-32009), verdict: Refused},
		{name: "internal error", answer: rpcError(-32603), verdict: InDoubt, says: "not sent again"},
		{name: "HTTP 500", answer: status(http.StatusInternalServerError), verdict: InDoubt, says: "500"},
		{name: "HTTP 503", answer: status(http.StatusServiceUnavailable), verdict: InDoubt, says: "503"},
		{name: "timeout after the write", answer: hang, verdict: InDoubt, says: "deadline"},
		{name: "connection broken after the write", answer: broken, verdict: InDoubt, says: "EOF"},
		{name: "unreadable answer", answer: func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "<html>") }, verdict: InDoubt},
		{name: "task failed", answer: rpcResult(task(a2a.TaskStateFailed, "the model is down")), verdict: Failed, says: "ended failed: the model is down"},
		{name: "task rejected", answer: rpcResult(task(a2a.TaskStateRejected, "not today")), verdict: Refused, says: "rejected task task-1: not today"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, tc.answer)
			reply, err := Send(context.Background(), Request{URL: p.URL, Text: "hi", Timeout: 2 * time.Second, Attempts: 3})
			if got := p.calls.Load(); got != 1 {
				t.Errorf("the peer read %d calls, want 1: a call the peer read is never sent again", got)
			}
			if tc.verdict == 0 {
				if err != nil {
					t.Fatalf("Send: %v", err)
				}
				if reply.Text != tc.reply {
					t.Errorf("reply %q, want %q", reply.Text, tc.reply)
				}
				return
			}
			var callErr *Error
			if !errors.As(err, &callErr) {
				t.Fatalf("Send = %v, want an *Error", err)
			}
			if callErr.Verdict != tc.verdict {
				t.Errorf("verdict %v, want %v (%v)", callErr.Verdict, tc.verdict, err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

// TestSendRetriesWhatWasNotSent: a call to a port nothing listens on yet
// is tried again until the agent listens, and then answered; one to a
// port nothing ever listens on ends unsent after every attempt.
func TestSendRetriesWhatWasNotSent(t *testing.T) {
	addr := freeAddr(t)
	late := &http.Server{ReadHeaderTimeout: time.Second, Handler: rpcResult(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("up now")))}
	go func() {
		time.Sleep(300 * time.Millisecond)
		l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
		if err != nil {
			return
		}
		_ = late.Serve(l)
	}()
	t.Cleanup(func() { _ = late.Close() })
	reply, err := Send(context.Background(), Request{URL: "http://" + addr, Text: "hi", Timeout: 10 * time.Second, Attempts: 10})
	if err != nil || reply.Text != "up now" {
		t.Fatalf("Send to an agent that listens late = %+v, %v; want its reply", reply, err)
	}

	_, err = Send(context.Background(), Request{URL: "http://" + freeAddr(t), Text: "hi", Timeout: 10 * time.Second, Attempts: 3})
	var callErr *Error
	if !errors.As(err, &callErr) || callErr.Verdict != Unsent || callErr.Attempts != 3 {
		t.Fatalf("Send to a closed port = %v, want unsent after 3 attempts", err)
	}
	if !strings.Contains(err.Error(), "nothing sent") {
		t.Errorf("error %q does not say nothing was sent", err)
	}
}

// TestSendUntrustedCertificate: a certificate the client does not trust
// fails the same way every time, so the call is not tried again.
func TestSendUntrustedCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(rpcResult(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("x"))))
	t.Cleanup(srv.Close)
	_, err := Send(context.Background(), Request{URL: srv.URL, Text: "hi", Attempts: 3})
	var callErr *Error
	if !errors.As(err, &callErr) || callErr.Verdict != Unsent || callErr.Attempts != 1 {
		t.Fatalf("Send to an untrusted certificate = %v, want unsent after 1 attempt", err)
	}
}

// TestSendHeaders: the request carries the caller's headers and the A2A
// version it speaks.
func TestSendHeaders(t *testing.T) {
	var auth, version atomic.Value
	p := newPeer(t, func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		version.Store(r.Header.Get("A2A-Version"))
		rpcResult(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("ok")))(w, r)
	})
	if _, err := Send(context.Background(), Request{URL: p.URL, Text: "hi", Headers: map[string]string{"authorization": "Bearer t0k"}}); err != nil {
		t.Fatal(err)
	}
	if auth.Load() != "Bearer t0k" || version.Load() != "1.0" {
		t.Errorf("headers Authorization %q, A2A-Version %q; want the caller's and 1.0", auth.Load(), version.Load())
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	return fmt.Sprintf("127.0.0.1:%d", a2acli.FreePort(t))
}
