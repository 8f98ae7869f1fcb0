package agenthost

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// TestStalledBodyIsCut checks a client that sends headers and then stalls
// mid-body loses its connection once the body read timeout passes.
func TestStalledBodyIsCut(t *testing.T) {
	cfg := parseConfig(t, echoConfig)
	h := startInProcess(t, cfg, Options{BodyReadTimeout: 50 * time.Millisecond})

	var d net.Dialer
	endpoint, err := url.Parse(h.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := d.DialContext(ctxFor(t), "tcp", endpoint.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	if _, err := conn.Write([]byte("POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n" +
		"Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("stalled body answered %d (close %v), want 408 and the connection closed", resp.StatusCode, resp.Close)
	}
}

// TestRefusalBeforeTheBodyIsAnswered checks a call refused before its
// body is read, over HTTP/1.1, is answered, and its connection closed,
// once the body deadline passes, though the client never sends the body
// it declared: HTTP/1.1 reads what is left of a body before it answers.
func TestRefusalBeforeTheBodyIsAnswered(t *testing.T) {
	h := startInProcess(t, parseConfig(t, guardedBindingsConfig), Options{BodyReadTimeout: 50 * time.Millisecond})
	base := strings.TrimSuffix(mustURL(t, h.Endpoint()).Path, "/")
	for _, path := range []string{base + "/", base + "/message:send"} {
		t.Run(path, func(t *testing.T) {
			conn := dialHost(t, h.Endpoint())
			_ = conn.SetDeadline(time.Now().Add(waitLimit))
			if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 100\r\n\r\n", path); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer to a call without the token that never sends its body: %v", err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
				t.Errorf("answered %d (close %v), want 401 and the connection closed", resp.StatusCode, resp.Close)
			}
		})
	}
}

// TestOversizedBodyIsRefused checks the body size bound.
func TestOversizedBodyIsRefused(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	huge := bytes.Repeat([]byte(" "), maxRequestBytes+1)
	res := do(t, http.MethodPost, h.Endpoint(), http.Header{"Content-Type": {"application/json"}}, huge)
	if res.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", res.status)
	}
	wantRPCError(t, res, -32600)
}

// TestTaskStoreIsBoundedByCount checks [tasks] max_count through the host:
// the least recently updated finished task goes first.
func TestTaskStoreIsBoundedByCount(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig+"\n[tasks]\nmax_count = 3\n"), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	var ids []a2a.TaskID
	for _, text := range []string{"a", "b", "c", "d", "e"} {
		res, err := client.SendMessage(ctxFor(t), userText(text))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*a2a.Task).ID)
	}
	for i, id := range ids {
		_, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: id})
		if evicted := i < 2; evicted != errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("task %d: GetTask err = %v, want evicted %v", i, err, evicted)
		}
	}
	page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{})
	if err != nil || page.TotalSize != 3 {
		t.Errorf("ListTasks = %+v, %v; want 3 tasks", page, err)
	}
}

// TestTaskStoreIsBoundedByAge checks tasks not updated within the
// retention are dropped, on a clock the test moves.
func TestTaskStoreIsBoundedByAge(t *testing.T) {
	store := newTaskStore(100, time.Hour)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store.now = func() time.Time { return now }
	ctx := asCaller(sharedScope)
	old := &a2a.Task{ID: "old", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	if _, err := store.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	now = now.Add(50 * time.Minute)
	recent := &a2a.Task{ID: "recent", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	if _, err := store.Create(ctx, recent); err != nil {
		t.Fatal(err)
	}
	now = now.Add(20 * time.Minute)
	if _, err := store.Get(ctx, "old"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("task older than the retention: err = %v, want %v", err, a2a.ErrTaskNotFound)
	}
	if _, err := store.Get(ctx, "recent"); err != nil {
		t.Errorf("task within the retention: %v", err)
	}
	if page, _ := store.List(ctx, &a2a.ListTasksRequest{}); page.TotalSize != 1 {
		t.Errorf("listed %d tasks, want 1", page.TotalSize)
	}
}

// TestUpstreamCallEndsWithTheClient checks a model call made for a client
// that waits for it is canceled when that client goes away, and the task
// says why.
func TestUpstreamCallEndsWithTheClient(t *testing.T) {
	upstreamGone := make(chan struct{})
	var once sync.Once
	model := newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		once.Do(func() { close(upstreamGone) })
	})
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), Options{})

	ctx, cancel := context.WithCancel(ctxFor(t))
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + mustJSON(t, sendParams("slow")) + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.Endpoint(), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(a2a.SvcParamVersion, string(a2a.Version))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}()
	waitFor(t, func() bool { return len(model.recorded()) == 1 })
	cancel()
	<-done
	select {
	case <-upstreamGone:
	case <-time.After(waitLimit):
		t.Fatal("the model call outlived the client that waited for it")
	}
	client, _ := newClient(t, h.Endpoint(), nil)
	waitFor(t, func() bool {
		page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{})
		return err == nil && len(page.Tasks) == 1 && page.Tasks[0].Status.State == a2a.TaskStateCanceled
	})
}

// TestUpstreamCallsAreCapped checks no more than max_concurrent_calls
// model calls run at once, and that tasks a client did not wait for run to
// completion after its request ended.
func TestUpstreamCallsAreCapped(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	inFlight, most := 0, 0
	model := newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		answerWith(http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"done"}}]}`)(w, r)
	})
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "max_concurrent_calls = 2")), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	for range 4 {
		req := userText("queue me")
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
		if _, err := client.SendMessage(ctxFor(t), req); err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
	}
	waitFor(t, func() bool { return len(model.recorded()) == 2 })
	// The other two wait for a slot; give them every chance to break the cap.
	time.Sleep(100 * time.Millisecond)
	if n := len(model.recorded()); n != 2 {
		t.Fatalf("%d model calls started with max_concurrent_calls = 2", n)
	}
	close(release)
	waitFor(t, func() bool {
		page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{Status: a2a.TaskStateCompleted})
		return err == nil && page.TotalSize == 4
	})
	mu.Lock()
	defer mu.Unlock()
	if most != 2 {
		t.Errorf("at most %d model calls ran at once, want 2", most)
	}
}

// TestExpandedSecretsStayOutOfErrorsAndLogs checks a diagnostic about an
// expanded value names the variable, never the value.
func TestExpandedSecretsStayOutOfErrorsAndLogs(t *testing.T) {
	t.Run("bad value at start", func(t *testing.T) {
		file := writeConfig(t, llmConfig("${MODEL_URL}", ""))
		p := execHost(t, []string{"MODEL_URL=not-a-url-s3cr3t-value"}, "--config", file)
		if code := p.wait(t); code != exitUsage {
			t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, p.stderr)
		}
		stderr := p.stderr.String()
		if strings.Contains(stderr, "s3cr3t") || !strings.Contains(stderr, "${MODEL_URL}") {
			t.Errorf("stderr %q, want the variable named and its value hidden", stderr)
		}
	})
	t.Run("failing upstream", func(t *testing.T) {
		model := newFakeModel(t, answerWith(http.StatusInternalServerError, `{"error":{"message":"overloaded"}}`))
		p := startHostProcess(t, llmConfig("${MODEL_URL}", ""), []string{"MODEL_URL=" + model.URL + "/pa55word-in-path/v1"})
		client, _ := newClient(t, p.endpoint, nil)
		res, err := client.SendMessage(ctxFor(t), userText("hello"))
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		task := res.(*a2a.Task)
		if task.Status.State != a2a.TaskStateFailed || task.Status.Message == nil {
			t.Fatalf("task %+v, want failed with a reason", task.Status)
		}
		reason := messageText(task.Status.Message)
		if strings.Contains(reason, "pa55word") || !strings.Contains(reason, "${MODEL_URL}") {
			t.Errorf("failure reason %q, want the variable named and its value hidden", reason)
		}
		if out := p.stdout.String() + p.stderr.String(); strings.Contains(out, "pa55word") {
			t.Errorf("log carries the expanded value:\n%s", out)
		}
	})
	t.Run("unreachable upstream", func(t *testing.T) {
		var lc net.ListenConfig
		ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://user:pa55word@" + ln.Addr().String() + "/v1"
		_ = ln.Close()
		h := startInProcess(t, parseConfigEnv(t, llmConfig("${MODEL_URL}", ""), "MODEL_URL", closed),
			Options{Redact: newRedactor(map[string]string{"MODEL_URL": closed})})
		client, _ := newClient(t, h.Endpoint(), nil)
		res, err := client.SendMessage(ctxFor(t), userText("hello"))
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		reason := messageText(res.(*a2a.Task).Status.Message)
		if strings.Contains(reason, "pa55word") || strings.Contains(reason, closed) || !strings.Contains(reason, "${MODEL_URL}") {
			t.Errorf("failure reason %q, want the variable named and its value hidden", reason)
		}
	})
}

func parseConfigEnv(t *testing.T, toml, name, value string) *agentconfig.Config {
	t.Helper()
	t.Setenv(name, value)
	return parseConfig(t, toml)
}
