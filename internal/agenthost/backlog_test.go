package agenthost

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// TestSendsBeyondTheBacklogAreRefused sends 60 messages with
// returnImmediately to a model agent whose model answers nothing yet, as
// the red-team issue did: the host takes on as many tasks as its bounds
// let it, refuses the rest with an error saying which bound is reached,
// keeps every task it took on, lets a waiting one be canceled, and the
// model sees a call for each task taken on and not canceled, no more.
func TestSendsBeyondTheBacklogAreRefused(t *testing.T) {
	tests := []struct {
		name      string
		config    string
		calls     int // max_concurrent_calls
		takenOn   int
		wantError string
	}{
		{"task store full", "max_concurrent_calls = 2\n\n[tasks]\nmax_count = 10", 2, 10, "the task store is full of unfinished tasks: all 10 places ([tasks] max_count)"},
		{"calls waiting", "max_concurrent_calls = 1", 1, 1 + waitingPerSlot, "max_concurrent_calls = 1 model calls are running and 4 more tasks wait for a free slot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, release := heldModel(t)
			h := startInProcess(t, parseConfig(t, llmConfig(model.URL, tt.config)), Options{})
			client, _ := newClient(t, h.Endpoint(), nil)

			takenOn := map[string]a2a.TaskID{} // by the text sent
			refused := 0
			for i := range 60 {
				text := "send " + strconv.Itoa(i)
				req := userText(text)
				req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
				res, err := client.SendMessage(ctxFor(t), req)
				switch {
				case err == nil:
					takenOn[text] = res.(*a2a.Task).ID
				case errors.Is(err, a2a.ErrInternalError) && strings.Contains(err.Error(), tt.wantError):
					refused++
				default:
					t.Fatalf("send %d: %v, want it taken on or refused with %q", i, err, tt.wantError)
				}
			}
			if len(takenOn) != tt.takenOn || refused != 60-tt.takenOn {
				t.Fatalf("%d sends taken on and %d refused, want %d and %d", len(takenOn), refused, tt.takenOn, 60-tt.takenOn)
			}

			waitFor(t, func() bool { return len(model.recorded()) == tt.calls })
			for text, id := range takenOn {
				task, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: id})
				if err != nil || task.Status.State.Terminal() {
					t.Fatalf("task of %q while the model holds its calls: %+v, %v; want it kept, unfinished", text, task, err)
				}
			}

			waiting := ""
			for text := range takenOn {
				if !slices.Contains(prompts(model), text) {
					waiting = text
					break
				}
			}
			canceled, err := client.CancelTask(ctxFor(t), &a2a.CancelTaskRequest{ID: takenOn[waiting]})
			if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("CancelTask of the waiting task of %q: %+v, %v; want it canceled", waiting, canceled, err)
			}

			release()
			waitFor(t, func() bool {
				page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{Status: a2a.TaskStateCompleted})
				return err == nil && page.TotalSize == tt.takenOn-1
			})
			// Give a host that still calls the model for the canceled
			// task every chance to.
			time.Sleep(100 * time.Millisecond)
			seen := prompts(model)
			if len(seen) != tt.takenOn-1 || slices.Contains(seen, waiting) {
				t.Errorf("the model saw %d calls (%v), want one per task taken on and not canceled: %d, none for %q",
					len(seen), seen, tt.takenOn-1, waiting)
			}
		})
	}
}

// prompts are the user texts the model was sent.
func prompts(model *fakeModel) []string {
	var out []string
	for _, r := range model.recorded() {
		out = append(out, r.body.Messages[len(r.body.Messages)-1].Content)
	}
	return out
}

// TestTaskStoreKeepsUnfinishedTasks checks the store drops only finished
// tasks to make room, refuses a new task when none is finished, and never
// drops a task an execution works on, however old.
func TestTaskStoreKeepsUnfinishedTasks(t *testing.T) {
	store := newTaskStore(2, time.Hour)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store.now = func() time.Time { return now }
	ctx := asCaller(sharedScope)
	create := func(id a2a.TaskID, state a2a.TaskState) error {
		_, err := store.Create(ctx, &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: state}})
		return err
	}
	finish := func(id a2a.TaskID) {
		if _, err := store.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(id a2a.TaskID) bool {
		_, err := store.Get(ctx, id)
		return err == nil
	}

	old, err := store.run(ctx, "old", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := create("old", a2a.TaskStateWorking); err != nil {
		t.Fatal(err)
	}
	if err := create("idle", a2a.TaskStateInputRequired); err != nil {
		t.Fatal(err)
	}
	if _, err := store.run(ctx, "third", true); err == nil || !strings.Contains(err.Error(), "full of unfinished tasks") {
		t.Fatalf("a third task with two unfinished kept: %v, want the store full of unfinished tasks", err)
	}
	if err := create("third", a2a.TaskStateSubmitted); err == nil || !errors.Is(err, a2a.ErrInternalError) {
		t.Fatalf("creating a third task with two unfinished kept: %v, want it refused", err)
	}

	finish("idle")
	if err := create("third", a2a.TaskStateWorking); err != nil {
		t.Fatalf("a third task once one finished: %v", err)
	}
	if kept("idle") || !kept("old") || !kept("third") {
		t.Errorf("kept idle %v, old %v, third %v; want the finished one dropped for the new one", kept("idle"), kept("old"), kept("third"))
	}

	now = now.Add(2 * time.Hour)
	if !kept("old") || kept("third") {
		t.Errorf("after the retention: kept old %v, third %v; want the running one kept, the other dropped", kept("old"), kept("third"))
	}
	old.end()
	if kept("old") {
		t.Errorf("a task past the retention is kept after its execution ended")
	}
}
