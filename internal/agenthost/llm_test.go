package agenthost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// fakeModel is an OpenAI-compatible chat-completions endpoint on loopback
// that records what it was sent and answers as told.
type fakeModel struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recordedChat
	answer   func(w http.ResponseWriter, r *http.Request)
}

type recordedChat struct {
	method, path, authorization, contentType string
	body                                     chatRequest
}

func newFakeModel(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *fakeModel {
	t.Helper()
	f := &fakeModel{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := recordedChat{method: r.Method, path: r.URL.Path, authorization: r.Header.Get("Authorization"), contentType: r.Header.Get("Content-Type")}
		if err := json.Unmarshal(raw, &rec.body); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, rec)
		f.mu.Unlock()
		f.answer(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeModel) recorded() []recordedChat {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedChat(nil), f.requests...)
}

// heldModel is a model endpoint that answers no call until release is
// called, which the test's cleanup does too.
func heldModel(t *testing.T) (model *fakeModel, release func()) {
	t.Helper()
	held := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	model = newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
		answerWith(http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"done"}}]}`)(w, r)
	})
	t.Cleanup(release)
	return model, release
}

func answerWith(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func llmConfig(baseURL, extra string) string {
	return fmt.Sprintf(`
[agent]
name = "Model Agent"

[handler]
type = "llm"

[handler.llm]
base_url = %q
model = "tiny-model"
%s
`, baseURL, extra)
}

const apiKey = "sk-test-0123456789abcdef"

func TestLLMHandler(t *testing.T) {
	t.Setenv("MODEL_API_KEY", apiKey)
	cases := []struct {
		name       string
		answer     func(http.ResponseWriter, *http.Request)
		extra      string
		wantState  a2a.TaskState
		wantText   string // in the artifact when completed, in the status message when failed
		wantSystem bool
		wantAuth   string
	}{
		{
			name:       "reply with system prompt and key",
			answer:     answerWith(200, `{"choices":[{"message":{"role":"assistant","content":"pong"}},{"message":{"role":"assistant","content":"second"}}]}`),
			extra:      "api_key = \"${MODEL_API_KEY}\"\nsystem_prompt = \"Answer briefly.\"",
			wantState:  a2a.TaskStateCompleted,
			wantText:   "pong",
			wantSystem: true,
			wantAuth:   "Bearer " + apiKey,
		},
		{
			name:      "reply without system prompt or key",
			answer:    answerWith(200, `{"choices":[{"message":{"role":"assistant","content":"plain"}}]}`),
			wantState: a2a.TaskStateCompleted,
			wantText:  "plain",
		},
		{
			name:      "endpoint refuses and echoes the key",
			answer:    answerWith(401, `{"error":{"message":"Incorrect API key provided: `+apiKey+`","type":"invalid_request_error"}}`),
			extra:     "api_key = \"${MODEL_API_KEY}\"",
			wantState: a2a.TaskStateFailed,
			wantText:  "401 Unauthorized: Incorrect API key provided: [redacted]",
			wantAuth:  "Bearer " + apiKey,
		},
		{
			name:      "endpoint fails with a plain body",
			answer:    answerWith(503, "overloaded"),
			wantState: a2a.TaskStateFailed,
			wantText:  "503 Service Unavailable: overloaded",
		},
		{
			name:      "no choices",
			answer:    answerWith(200, `{"choices":[]}`),
			wantState: a2a.TaskStateFailed,
			wantText:  "answered with no choices",
		},
		{
			name:      "not a chat completion",
			answer:    answerWith(200, `<html>`),
			wantState: a2a.TaskStateFailed,
			wantText:  "something other than a chat completion",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := newFakeModel(t, tc.answer)
			log := &syncBuffer{}
			h := startInProcess(t, parseConfig(t, llmConfig(model.URL+"/v1/", tc.extra)), Options{Log: log})
			client, _ := newClient(t, h.Endpoint(), nil)

			res, err := client.SendMessage(ctxFor(t), userText("ping"))
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			task, ok := res.(*a2a.Task)
			if !ok {
				t.Fatalf("result is %T, want a task", res)
			}
			if task.Status.State != tc.wantState {
				t.Fatalf("task state = %s, want %s (status message %v)", task.Status.State, tc.wantState, task.Status.Message)
			}
			if got := taskText(task); !strings.Contains(got, tc.wantText) {
				t.Errorf("task text = %q, want it to contain %q", got, tc.wantText)
			}

			reqs := model.recorded()
			if len(reqs) != 1 {
				t.Fatalf("endpoint got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost || r.path != "/v1/chat/completions" || r.contentType != "application/json" {
				t.Errorf("request = %s %s (%s), want POST /v1/chat/completions (application/json)", r.method, r.path, r.contentType)
			}
			if r.authorization != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", r.authorization, tc.wantAuth)
			}
			want := []chatMessage{{Role: "user", Content: "ping"}}
			if tc.wantSystem {
				want = append([]chatMessage{{Role: "system", Content: "Answer briefly."}}, want...)
			}
			if r.body.Model != "tiny-model" || fmt.Sprint(r.body.Messages) != fmt.Sprint(want) {
				t.Errorf("request body = %+v, want model tiny-model and messages %+v", r.body, want)
			}

			stored, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: task.ID})
			if err != nil {
				t.Fatalf("GetTask: %v", err)
			}
			if stored.Status.State != tc.wantState || taskText(stored) != taskText(task) {
				t.Errorf("GetTask = %s %q, want %s %q", stored.Status.State, taskText(stored), tc.wantState, taskText(task))
			}
			raw, _ := json.Marshal(stored)
			if strings.Contains(string(raw)+log.String(), apiKey) {
				t.Errorf("the API key leaked into the task or the log")
			}
		})
	}
}

// taskText is the text of a task's artifacts, or of its status message.
func taskText(task *a2a.Task) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text())
		}
	}
	if m := task.Status.Message; m != nil {
		b.WriteString(messageText(m))
	}
	return b.String()
}

func TestLLMUnreachableEndpoint(t *testing.T) {
	model := newFakeModel(t, answerWith(200, "{}"))
	model.Close() // nothing listens there any more
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	res, err := client.SendMessage(ctxFor(t), userText("anyone?"))
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task := res.(*a2a.Task)
	if task.Status.State != a2a.TaskStateFailed || !strings.Contains(taskText(task), "could not be reached") {
		t.Errorf("task = %s %q, want failed: could not be reached", task.Status.State, taskText(task))
	}
}

// TestLLMStreamAndCancel streams a task while the model is still thinking,
// cancels it, and finds it canceled.
func TestLLMStreamAndCancel(t *testing.T) {
	release := make(chan struct{})
	model := newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)

	var taskID a2a.TaskID
	var states []a2a.TaskState
	for ev, err := range client.SendStreamingMessage(ctxFor(t), userText("think hard")) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			taskID = e.ID
			states = append(states, e.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
			if e.Status.State == a2a.TaskStateWorking {
				canceled, err := client.CancelTask(ctxFor(t), &a2a.CancelTaskRequest{ID: taskID})
				if err != nil {
					t.Fatalf("CancelTask: %v", err)
				}
				if canceled.Status.State != a2a.TaskStateCanceled {
					t.Errorf("CancelTask answered state %s, want canceled", canceled.Status.State)
				}
			}
		}
	}
	if len(states) < 2 || states[0] != a2a.TaskStateSubmitted || states[1] != a2a.TaskStateWorking {
		t.Fatalf("streamed states = %v, want submitted then working first", states)
	}
	if last := states[len(states)-1]; last != a2a.TaskStateCanceled {
		t.Errorf("stream ended in state %s (states %v), want canceled", last, states)
	}
	stored, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: taskID})
	if err != nil {
		t.Fatalf("GetTask: %v", err)
	}
	if stored.Status.State != a2a.TaskStateCanceled {
		t.Errorf("GetTask state = %s, want canceled", stored.Status.State)
	}
	if _, err := client.CancelTask(ctxFor(t), &a2a.CancelTaskRequest{ID: taskID}); err != nil {
		t.Errorf("canceling a canceled task again: %v", err)
	}
}
