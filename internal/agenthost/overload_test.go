package agenthost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The tests in this file send what a client out to exhaust a host sends:
// huge batches, floods of requests and of connections.

// sendCall is a SendMessage call of a batch.
func sendCall(t *testing.T, id any, text string) string {
	return `{"jsonrpc":"2.0","id":` + mustJSON(t, id) + `,"method":"SendMessage","params":` + mustJSON(t, sendParams(text)) + `}`
}

func batchOf(t *testing.T, calls int) []byte {
	parts := make([]string, calls)
	for i := range parts {
		parts[i] = sendCall(t, i, "call "+strconv.Itoa(i))
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

var rpcHeader = http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}

// TestBatchOverTheCapIsRefusedWhole checks a batch of more calls than
// maxBatchCalls is refused with one error naming the cap, before any of
// its calls runs, and that a full batch still runs every call.
func TestBatchOverTheCapIsRefusedWhole(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})

	rpc := wantWireError(t, do(t, http.MethodPost, h.Endpoint(), rpcHeader, batchOf(t, maxBatchCalls+1)), codeInvalidRequest, a2a.ErrInvalidRequest)
	if rpc.ID != nil || !strings.Contains(rpc.Error.Message, fmt.Sprintf("at most %d calls", maxBatchCalls)) {
		t.Errorf("refusal %+v, want id null and a message naming the cap of %d", rpc, maxBatchCalls)
	}
	if n := countTasks(t, h.Endpoint()); n != 0 {
		t.Errorf("a refused batch ran %d of its calls", n)
	}

	res := do(t, http.MethodPost, h.Endpoint(), rpcHeader, batchOf(t, maxBatchCalls))
	var answers []rpcResponse
	if err := json.Unmarshal(res.body, &answers); err != nil || len(answers) != maxBatchCalls {
		t.Fatalf("a batch of %d calls answered %d answers (%v)", maxBatchCalls, len(answers), err)
	}
	for i, a := range answers {
		if a.Error != nil || a.ID != float64(i) {
			t.Fatalf("answer %d = %+v, want the result of call %d", i, a, i)
		}
	}
}

// TestBatchAnswersAreStreamed checks a batch's answers leave as their calls
// finish: the first is readable while the second call still waits for its
// model, so the host does not hold all answers until the last call ends.
func TestBatchAnswersAreStreamed(t *testing.T) {
	model, release := heldModel(t)
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), Options{})

	// The first call reads a task (no model involved), the second waits
	// for the held model.
	body := `[{"jsonrpc":"2.0","id":"first","method":"GetTask","params":{"id":"missing"}},` + sendCall(t, "second", "slow") + `]`
	req, err := http.NewRequestWithContext(ctxFor(t), http.MethodPost, h.Endpoint(), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = rpcHeader.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer to a batch whose second call waits: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	dec := json.NewDecoder(resp.Body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		t.Fatalf("batch answer starts with %v (%v), want [", tok, err)
	}
	var first rpcResponse
	if err := dec.Decode(&first); err != nil || first.ID != "first" {
		t.Fatalf("first answer %+v (%v), want the answer to call first", first, err)
	}
	release()
	var second rpcResponse
	if err := dec.Decode(&second); err != nil || second.ID != "second" || second.Error != nil {
		t.Fatalf("second answer %+v (%v), want the result of call second", second, err)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		t.Fatalf("batch answer ends with %v (%v), want ]", tok, err)
	}
}

// TestRequestsOverTheBudgetAreRefused checks requests beyond what the host
// serves at once are refused at once with 503, Retry-After and a JSON-RPC
// error, not queued, whether they are many small ones or a few with large
// bodies; and that the host serves again once they end.
func TestRequestsOverTheBudgetAreRefused(t *testing.T) {
	t.Run("many calls", func(t *testing.T) {
		model, release := heldModel(t)
		concurrent := requestBudget / minRequestCost
		h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "max_concurrent_calls = "+strconv.Itoa(concurrent))), Options{})

		answered := make(chan error, concurrent)
		ctx := ctxFor(t)
		for i := range concurrent {
			body := []byte(sendCall(t, i, "hold"))
			go func() { answered <- postQuietly(ctx, h.Endpoint(), body) }()
		}
		waitFor(t, func() bool { return len(model.recorded()) == concurrent })
		wantBusy(t, do(t, http.MethodPost, h.Endpoint(), rpcHeader, []byte(sendCall(t, "one more", "refuse me"))))
		if res := httpGet(t, h.CardURL()); res.status != http.StatusOK {
			t.Errorf("card answered %d while the JSON-RPC budget is full, want 200", res.status)
		}
		release()
		for range concurrent {
			if err := <-answered; err != nil {
				t.Error(err)
			}
		}
		if res := do(t, http.MethodPost, h.Endpoint(), rpcHeader, []byte(sendCall(t, "after", "served"))); res.status != http.StatusOK {
			t.Errorf("after the flood ended a call answered %d: %s", res.status, res.body)
		}
	})
	t.Run("large bodies", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{BodyReadTimeout: waitLimit})
		stalled := stallBudget(t, h)
		probe := func() int {
			return do(t, http.MethodPost, h.Endpoint(), rpcHeader, []byte(sendCall(t, "probe", "small"))).status
		}
		wantBusy(t, do(t, http.MethodPost, h.Endpoint(), rpcHeader, []byte(sendCall(t, "small", "refuse me"))))
		for _, conn := range stalled {
			_ = conn.Close()
		}
		waitFor(t, func() bool { return probe() == http.StatusOK })
	})
}

// stallBudget takes the host's whole budget with calls that declare the
// largest body and never send it, and returns their connections; the
// host must be started with a BodyReadTimeout that outlasts the test.
func stallBudget(t *testing.T, h *Host) []net.Conn {
	t.Helper()
	var stalled []net.Conn
	for range requestBudget / maxRequestBytes {
		conn := dialHost(t, h.Endpoint())
		stalled = append(stalled, conn)
		if _, err := fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n[", maxRequestBytes); err != nil {
			t.Fatal(err)
		}
	}
	// Only the stalled requests are in flight, so each has its charge.
	waitFor(t, func() bool { return h.activity.inFlight.Load() == int64(len(stalled)) })
	return stalled
}

func wantBusy(t *testing.T, res httpResult) {
	t.Helper()
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") != strconv.Itoa(busyRetryAfter) {
		t.Errorf("over the budget: status %d, Retry-After %q; want 503 and %d", res.status, res.header.Get("Retry-After"), busyRetryAfter)
	}
	rpc := wantWireError(t, res, codeInternalError, a2a.ErrInternalError)
	if !strings.Contains(rpc.Error.Message, "as many requests as it takes at once") || !strings.Contains(rpc.Error.Message, "retry") {
		t.Errorf("refusal %q does not say the agent is full and to retry", rpc.Error.Message)
	}
}

// postQuietly posts one JSON-RPC call from a goroutine other than the
// test's and reports what went wrong, if anything.
func postQuietly(ctx context.Context, endpoint string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = rpcHeader.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("call answered %d: %s", resp.StatusCode, raw)
	}
	return nil
}

func dialHost(t *testing.T, endpoint string) net.Conn {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctxFor(t), "tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestConnectionsOverTheCapWait checks the host keeps no more than
// maxConnections connections open: one more is not served while they are
// held open, and is served once one of them closes.
func TestConnectionsOverTheCapWait(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	getCardOn := func(conn net.Conn, r *bufio.Reader) error {
		if _, err := io.WriteString(conn, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: agent\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	held := make([]net.Conn, maxConnections)
	for i := range held {
		held[i] = dialHost(t, h.Endpoint())
		if err := getCardOn(held[i], bufio.NewReader(held[i])); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}

	extra := dialHost(t, h.Endpoint())
	var served atomic.Bool
	done := make(chan error, 1)
	go func() {
		err := getCardOn(extra, bufio.NewReader(extra))
		served.Store(true)
		done <- err
	}()
	// Give a host without the cap every chance to serve the extra one.
	time.Sleep(200 * time.Millisecond)
	if served.Load() {
		t.Fatalf("connection %d was served while %d were open", maxConnections+1, maxConnections)
	}
	_ = held[0].Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("connection %d, once one closed: %v", maxConnections+1, err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("connection %d not served after one of the others closed", maxConnections+1)
	}
}
