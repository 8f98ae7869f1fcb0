package agenthost

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// scriptedModel is a chat-completions endpoint that answers a prompt at once,
// or, for a prompt starting "slow", once the test lets it or the host
// gives up the call.
type scriptedModel struct {
	*httptest.Server
	mu      sync.Mutex
	release map[string]chan struct{}
	started chan string // each prompt, as its call arrives
	gaveUp  chan string // each held prompt whose call the host canceled
}

func newScriptedModel(t *testing.T) *scriptedModel {
	m := &scriptedModel{release: map[string]chan struct{}{}, started: make(chan string, 16), gaveUp: make(chan string, 16)}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		prompt := req.Messages[len(req.Messages)-1].Content
		m.started <- prompt
		if strings.HasPrefix(prompt, "slow") {
			select {
			case <-m.releaseOf(prompt):
			case <-r.Context().Done():
				m.gaveUp <- prompt
				return
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "re: " + prompt}}}})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *scriptedModel) releaseOf(prompt string) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release[prompt] == nil {
		m.release[prompt] = make(chan struct{})
	}
	return m.release[prompt]
}

func (m *scriptedModel) let(prompt string) { close(m.releaseOf(prompt)) }

// receive waits for the next value of ch, which must be want.
func receive(t *testing.T, ch <-chan string, want, what string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("%s: %q, want %q", what, got, want)
		}
	case <-time.After(waitLimit):
		t.Fatalf("%s: nothing for %q after %s", what, want, waitLimit)
	}
}

// startReplicas starts n hosts of one agent as real host processes
// sharing the task store dsn, and an SDK client of each.
func startReplicas(t *testing.T, toml, dsn string, n int) ([]*hostProcess, []*a2aclient.Client) {
	t.Helper()
	var hosts []*hostProcess
	var clients []*a2aclient.Client
	for range n {
		p := startHostProcess(t, toml, []string{"A2A_TEST_TASK_STORE=" + dsn})
		client, _ := newClient(t, p.endpoint, nil)
		hosts, clients = append(hosts, p), append(clients, client)
	}
	return hosts, clients
}

func sendHeld(t *testing.T, client *a2aclient.Client, prompt string) *a2a.Task {
	t.Helper()
	req := userText(prompt)
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	res, err := client.SendMessage(ctxFor(t), req)
	if err != nil {
		t.Fatalf("SendMessage %q: %v", prompt, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage %q answered %T, want a task", prompt, res)
	}
	return task
}

// TestReplicasShareTasks: two hosts of one agent, real agent host
// processes sharing a PostgreSQL task store, answer task calls through
// the official SDK client as one agent would, whichever gets the call:
// GetTask and ListTasks of a task the other made, SubscribeToTask of one
// the other works on, a message to it refused as still worked on, and
// CancelTask of it, which stops the model call the other host makes.
func TestReplicasShareTasks(t *testing.T) {
	model := newScriptedModel(t)
	toml := llmConfig(model.URL, "") + "\n[tasks]\nstore = \"${A2A_TEST_TASK_STORE}\"\n"
	_, clients := startReplicas(t, toml, pgtest.Shared(t).NewDatabase(t), 2)
	a, b := clients[0], clients[1]
	ctx := ctxFor(t)

	res, err := a.SendMessage(ctx, userText("quick"))
	if err != nil {
		t.Fatal(err)
	}
	done := res.(*a2a.Task)
	receive(t, model.started, "quick", "model call")
	got, err := b.GetTask(ctx, &a2a.GetTaskRequest{ID: done.ID})
	if err != nil || mustJSON(t, got) != mustJSON(t, done) {
		t.Fatalf("GetTask on the other host = %s, %v; want the task as its host answered it: %s", mustJSON(t, got), err, mustJSON(t, done))
	}
	listA, errA := a.ListTasks(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	listB, errB := b.ListTasks(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	if errA != nil || errB != nil || listB.TotalSize != 1 || mustJSON(t, listA) != mustJSON(t, listB) {
		t.Errorf("ListTasks: %s, %v on the host that made it, %s, %v on the other; want the one task, alike", mustJSON(t, listA), errA, mustJSON(t, listB), errB)
	}

	// A task the first host works on streams on the second, to its end.
	followed := sendHeld(t, a, "slow and followed")
	receive(t, model.started, "slow and followed", "model call")
	var states []a2a.TaskState
	var answer string
	for ev, err := range b.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: followed.ID}) {
		if err != nil {
			t.Fatalf("SubscribeToTask on the other host: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			states = append(states, e.Status.State)
			if len(states) == 1 {
				model.let("slow and followed")
			}
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
		case *a2a.TaskArtifactUpdateEvent:
			answer += partsText(e.Artifact.Parts)
		}
	}
	if answer != "re: slow and followed" || !slices.Contains(states, a2a.TaskStateWorking) || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Errorf("the other host streamed states %v and answer %q; want working, then completed with the model's answer", states, answer)
	}

	// A task the first host works on is refused a message on the second,
	// and canceled from it: the first host gives up its model call.
	held := sendHeld(t, a, "slow and canceled")
	receive(t, model.started, "slow and canceled", "model call")
	more := userText("and another thing")
	more.Message.TaskID = held.ID
	if _, err := b.SendMessage(ctx, more); err == nil || !strings.Contains(err.Error(), "another replica") {
		t.Errorf("a message to a task the other host works on: %v, want it refused as worked on by another replica", err)
	}
	canceled, err := b.CancelTask(ctx, &a2a.CancelTaskRequest{ID: held.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask on the other host = %+v, %v; want it canceled", canceled, err)
	}
	receive(t, model.gaveUp, "slow and canceled", "canceled model call")
	waitFor(t, func() bool {
		got, err := a.GetTask(ctx, &a2a.GetTaskRequest{ID: held.ID})
		return err == nil && got.Status.State == a2a.TaskStateCanceled
	})
	if _, err := a.CancelTask(ctx, &a2a.CancelTaskRequest{ID: done.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("CancelTask of a completed task: %v, want %v", err, a2a.ErrTaskNotCancelable)
	}
}

// TestReplicaDeathFailsItsTasks: when a host is killed while it works on
// a task, another host of the agent fails the task once the dead host's
// lease has run out, saying why; without a store, the task is gone with
// the host.
func TestReplicaDeathFailsItsTasks(t *testing.T) {
	model := newScriptedModel(t)
	toml := llmConfig(model.URL, "") + "\n[tasks]\nstore = \"${A2A_TEST_TASK_STORE}\"\n"
	hosts, clients := startReplicas(t, toml, pgtest.Shared(t).NewDatabase(t), 2)
	task := sendHeld(t, clients[0], "slow and orphaned")
	receive(t, model.started, "slow and orphaned", "model call")
	if err := hosts[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := killed.Add(defaultLease + time.Minute)
	for {
		got, err := clients[1].GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: task.ID})
		if err != nil {
			t.Fatalf("GetTask on the surviving host: %v", err)
		}
		if got.Status.State == a2a.TaskStateFailed {
			if why := messageText(got.Status.Message); !strings.Contains(why, "stopped before it finished") {
				t.Errorf("the failed task says %q, want why", why)
			}
			t.Logf("failed %s after its host was killed (lease %s)", time.Since(killed).Round(time.Second), defaultLease)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task is still %s %s after its host was killed", got.Status.State, time.Since(killed).Round(time.Second))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestReplicasWithoutStoreMiss: without [tasks] store each host knows its
// own tasks only; the task one host made is unknown to the other. This is
// what the plan warns of for an agent with replicas and no store.
func TestReplicasWithoutStoreMiss(t *testing.T) {
	_, clients := startReplicas(t, echoConfig, "", 2)
	res, err := clients[0].SendMessage(ctxFor(t), userText("only here"))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2a.Task).ID
	if _, err := clients[1].GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("GetTask on the other host: %v, want %v", err, a2a.ErrTaskNotFound)
	}
	if _, err := clients[0].GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: id}); err != nil {
		t.Errorf("GetTask on the host that made it: %v", err)
	}
}

// TestTaskStoreStartErrors: a host whose store it cannot use does not
// start, and says why in one line that never shows the password: a
// reference that expands to nothing and a string the driver cannot read
// are config errors (status 2), a server that does not answer is not (1).
func TestTaskStoreStartErrors(t *testing.T) {
	const password = "pw-61c9e0"
	toml := echoConfig + "\n[tasks]\nstore = \"${AGENTHOST_TEST_STORE}\"\n"
	tests := []struct {
		name  string
		store string
		code  int
		want  []string
	}{
		{"empty", "", 2, []string{`[tasks] store "${AGENTHOST_TEST_STORE}"`, "empty connection string", "set AGENTHOST_TEST_STORE"}},
		{"unreadable", "postgres://tasks:" + password + "@db.example.com:notaport/tasks", 2, []string{"[tasks] store is not a PostgreSQL connection string"}},
		{"no server", fmt.Sprintf("postgres://tasks:%s@127.0.0.1:%d/tasks?connect_timeout=2", password, freePort(t)), 1,
			[]string{"could not connect to the task store ([tasks] store)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := execHost(t, []string{"AGENTHOST_TEST_STORE=" + tt.store}, "--config", writeConfig(t, toml))
			if code := p.wait(t); code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.code, p.stderr)
			}
			stderr := p.stderr.String()
			for _, want := range tt.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			if strings.Contains(stderr+p.stdout.String(), password) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("the host's output shows the password, or is not one line:\n%s%s", p.stdout, stderr)
			}
		})
	}
}
