package agenthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// testLease is the lease of the stores these tests open: short, so that a
// host's death shows within seconds, long enough to outlast a busy machine.
const testLease = 2 * time.Second

// openPG opens a store of agent in the database dsn, closed when the test
// ends.
func openPG(t *testing.T, dsn, agent string, maxTasks int, retention time.Duration) *pgTaskStore {
	t.Helper()
	s, err := openPGTaskStore(ctxFor(t), pgOptions{dsn: dsn, agent: agent, maxTasks: maxTasks, retention: retention, lease: testLease})
	if err != nil {
		t.Fatalf("open the task store: %v", err)
	}
	t.Cleanup(func() { _ = s.close(context.Background()) })
	return s
}

// kill stops a store as a killed host's stops: no lease is renewed, no
// task settled, its connections just go.
func (s *pgTaskStore) kill() {
	s.stop()
	s.done.Wait()
	s.pool.Close()
}

func testTask(id, contextID string, state a2a.TaskState, at time.Time) *a2a.Task {
	return &a2a.Task{ID: a2a.TaskID(id), ContextID: contextID, Status: a2a.TaskStatus{State: state, Timestamp: &at}}
}

// TestPGTaskStoreReadsAndWrites: a task is created once, read back as
// written at version 1, updated at the version read and refused at a stale
// one; an unknown task is not found.
func TestPGTaskStoreReadsAndWrites(t *testing.T) {
	s := openPG(t, pgtest.Shared(t).NewDatabase(t), "rw-agent", 10, time.Hour)
	ctx := asCaller(sharedScope)
	task := testTask("t1", "c1", a2a.TaskStateWorking, time.Now())
	task.History = []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello \u0000 world"))}
	if v, err := s.Create(ctx, task); err != nil || v != 1 {
		t.Fatalf("Create = %d, %v; want version 1", v, err)
	}
	if _, err := s.Create(ctx, task); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
		t.Errorf("second Create: %v, want %v", err, taskstore.ErrTaskAlreadyExists)
	}
	got, err := s.Get(ctx, "t1")
	if err != nil || got.Version != 1 || got.User != sharedScope || messageText(got.Task.History[0]) != "hello \u0000 world" {
		t.Fatalf("Get = %+v, %v; want the task as written at version 1", got, err)
	}
	done := *got.Task
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	if v, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &done, PrevVersion: 1}); err != nil || v != 2 {
		t.Fatalf("Update = %d, %v; want version 2", v, err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &done, PrevVersion: 1}); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Errorf("Update at a stale version: %v, want %v", err, taskstore.ErrConcurrentModification)
	}
	if got, err := s.Get(ctx, "t1"); err != nil || got.Task.Status.State != a2a.TaskStateCompleted || got.Task.Status.Timestamp == nil {
		t.Errorf("Get after the update = %+v, %v; want it completed, stamped", got, err)
	}
	for name, err := range map[string]error{
		"Get": func() error { _, err := s.Get(ctx, "nope"); return err }(),
		"Update": func() error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: testTask("nope", "c", a2a.TaskStateWorking, time.Now())})
			return err
		}(),
	} {
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("%s of an unknown task: %v, want %v", name, err, a2a.ErrTaskNotFound)
		}
	}
}

// TestPGTaskStoreScopes: agents sharing a database see only their own
// tasks, and callers only those of their scope.
func TestPGTaskStoreScopes(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	first, second := openPG(t, dsn, "first-agent", 10, time.Hour), openPG(t, dsn, "second-agent", 10, time.Hour)
	owner, other := asCaller("bearer:a"), asCaller("bearer:b")
	if _, err := first.Create(owner, testTask("shared-id", "c", a2a.TaskStateCompleted, time.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Create(owner, testTask("shared-id", "c", a2a.TaskStateWorking, time.Now())); err != nil {
		t.Fatalf("another agent's task of the same id: %v", err)
	}
	if got, err := first.Get(owner, "shared-id"); err != nil || got.Task.Status.State != a2a.TaskStateCompleted {
		t.Errorf("the first agent reads %+v, %v; want its own task", got, err)
	}
	if _, err := first.Get(other, "shared-id"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Get from another scope: %v, want %v", err, a2a.ErrTaskNotFound)
	}
	if _, err := first.Update(other, &taskstore.UpdateRequest{Task: testTask("shared-id", "c", a2a.TaskStateFailed, time.Now())}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Update from another scope: %v, want %v", err, a2a.ErrTaskNotFound)
	}
	for _, tc := range []struct {
		store *pgTaskStore
		ctx   context.Context
		want  int
	}{{first, owner, 1}, {first, other, 0}, {second, owner, 1}} {
		if page, err := tc.store.List(tc.ctx, &a2a.ListTasksRequest{}); err != nil || page.TotalSize != tc.want || len(page.Tasks) != tc.want {
			t.Errorf("List of %s as %s = %+v, %v; want %d tasks", tc.store.agent, caller(tc.ctx), page, err, tc.want)
		}
	}
}

// TestPGTaskStoreListsAsMemory: the same tasks in both stores list alike,
// page by page, for every filter: one agent answers the same whichever
// store keeps its tasks.
func TestPGTaskStoreListsAsMemory(t *testing.T) {
	pg := openPG(t, pgtest.Shared(t).NewDatabase(t), "list-agent", 100, time.Hour)
	mem := newTaskStore(100, time.Hour)
	ctx := asCaller(sharedScope)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	states := []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateWorking, a2a.TaskStateFailed}
	for i := range 23 {
		// Some tasks share a status time, down to the nanosecond, so that
		// ids break the tie.
		at := base.Add(time.Duration(i/2) * time.Second).Add(time.Duration(i%3) * time.Nanosecond)
		task := testTask(fmt.Sprintf("task-%02d", 22-i), fmt.Sprintf("ctx-%d", i%2), states[i%3], at)
		task.History = []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("one")), a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("two"))}
		task.Artifacts = []*a2a.Artifact{{ID: "a", Parts: []*a2a.Part{a2a.NewTextPart("art")}}}
		for _, s := range []taskstore.Store{mem, pg} {
			if _, err := s.Create(ctx, task); err != nil {
				t.Fatal(err)
			}
		}
	}
	one, after := 1, base.Add(5*time.Second)
	requests := map[string]*a2a.ListTasksRequest{
		"defaults":          {},
		"pages of 4":        {PageSize: 4},
		"a context":         {ContextID: "ctx-1", PageSize: 3},
		"a state":           {Status: a2a.TaskStateWorking},
		"after a time":      {StatusTimestampAfter: &after, PageSize: 5},
		"history trimmed":   {HistoryLength: &one, IncludeArtifacts: true, PageSize: 7},
		"everything at one": {ContextID: "ctx-0", Status: a2a.TaskStateCompleted, StatusTimestampAfter: &base, PageSize: 1},
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			memReq, pgReq := *req, *req
			for page := 0; ; page++ {
				want, err := mem.List(ctx, &memReq)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.List(ctx, &pgReq)
				if err != nil {
					t.Fatalf("page %d: %v", page, err)
				}
				if w, g := mustJSON(t, want), mustJSON(t, got); w != g {
					t.Fatalf("page %d:\n got %s\nwant %s", page, g, w)
				}
				if want.NextPageToken == "" {
					return
				}
				memReq.PageToken, pgReq.PageToken = want.NextPageToken, got.NextPageToken
			}
		})
	}
	if _, err := pg.List(ctx, &a2a.ListTasksRequest{PageSize: 101}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("a page of 101: %v, want %v", err, a2a.ErrInvalidParams)
	}
	if _, err := pg.List(ctx, &a2a.ListTasksRequest{PageToken: "not-a-token"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("a foreign page token: %v, want %v", err, a2a.ErrInvalidParams)
	}
}

// TestPGTaskStoreKeepsUnfinishedTasks: the memory store's rules of
// [tasks] max_count, for the agent as a whole: only finished tasks make
// room, a new task is refused when none is finished, and a task a host
// works on stays.
func TestPGTaskStoreKeepsUnfinishedTasks(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	s, replica := openPG(t, dsn, "full-agent", 2, time.Hour), openPG(t, dsn, "full-agent", 2, time.Hour)
	ctx := asCaller(sharedScope)
	create := func(id string, state a2a.TaskState) error {
		_, err := s.Create(ctx, testTask(id, "c", state, time.Now()))
		return err
	}
	kept := func(id a2a.TaskID) bool {
		_, err := replica.Get(ctx, id)
		return err == nil
	}
	old, err := s.run(ctx, "old", true)
	if err != nil {
		t.Fatal(err)
	}
	defer old.end()
	if err := create("old", a2a.TaskStateWorking); err != nil {
		t.Fatal(err)
	}
	if err := create("idle", a2a.TaskStateInputRequired); err != nil {
		t.Fatal(err)
	}
	// The replica counts the same places.
	if _, err := replica.run(ctx, "third", true); err == nil || !strings.Contains(err.Error(), "full of unfinished tasks") {
		t.Fatalf("a third task with two unfinished kept: %v, want the store full of unfinished tasks", err)
	}
	if err := create("third", a2a.TaskStateSubmitted); !errors.Is(err, a2a.ErrInternalError) {
		t.Fatalf("creating a third task with two unfinished kept: %v, want it refused", err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: testTask("idle", "c", a2a.TaskStateCompleted, time.Now())}); err != nil {
		t.Fatal(err)
	}
	third, err := replica.run(ctx, "third", true)
	if err != nil {
		t.Fatalf("a third task once one finished: %v", err)
	}
	third.end()
	if err := create("third", a2a.TaskStateWorking); err != nil {
		t.Fatalf("creating the third task: %v", err)
	}
	if kept("idle") || !kept("old") || !kept("third") {
		t.Errorf("kept idle %v, old %v, third %v; want the finished one dropped for the new one", kept("idle"), kept("old"), kept("third"))
	}
}

// TestPGTaskStoreRetention: a task not updated within the retention is
// gone, from reads at once and from the database at the next sweep, but
// one a host works on stays until it is done.
func TestPGTaskStoreRetention(t *testing.T) {
	s := openPG(t, pgtest.Shared(t).NewDatabase(t), "aging-agent", 10, time.Second)
	ctx := asCaller(sharedScope)
	if _, err := s.Create(ctx, testTask("done", "c", a2a.TaskStateCompleted, time.Now())); err != nil {
		t.Fatal(err)
	}
	busy, err := s.run(ctx, "busy", true)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.end()
	if _, err := s.Create(ctx, testTask("busy", "c", a2a.TaskStateWorking, time.Now())); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := s.Get(ctx, "done"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("a finished task past the retention: %v, want %v", err, a2a.ErrTaskNotFound)
	}
	if _, err := s.Get(ctx, "busy"); err != nil {
		t.Errorf("a task worked on past the retention: %v, want it kept", err)
	}
	if page, err := s.List(ctx, &a2a.ListTasksRequest{}); err != nil || page.TotalSize != 1 {
		t.Errorf("List = %+v, %v; want the task worked on only", page, err)
	}
	waitFor(t, func() bool { return rowsOf(t, s) == 1 })
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: testTask("busy", "c", a2a.TaskStateCompleted, time.Now())}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return rowsOf(t, s) == 0 })
}

// rowsOf counts the agent's rows, tasks and kept places.
func rowsOf(t *testing.T, s *pgTaskStore) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM a2a_tasks WHERE agent_id = $1", s.agent).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPGTaskStoreSchemaMadeOnce: hosts starting at once on an empty
// database all start, and make the tables once.
func TestPGTaskStoreSchemaMadeOnce(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	const hosts = 8
	stores := make([]*pgTaskStore, hosts)
	errs := make([]error, hosts)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range hosts {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = openPGTaskStore(ctxFor(t), pgOptions{dsn: dsn, agent: "schema-agent", maxTasks: 10, retention: time.Hour, lease: testLease})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("host %d: %v", i, err)
			continue
		}
		t.Cleanup(func() { _ = stores[i].close(context.Background()) })
	}
	if t.Failed() {
		return
	}
	var tables int
	if err := stores[0].pool.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_tables WHERE tablename IN ('a2a_tasks', 'a2a_task_events')").Scan(&tables); err != nil || tables != 2 {
		t.Errorf("%d tables, %v; want a2a_tasks and a2a_task_events", tables, err)
	}
}

// TestPGTaskStoreRefusesWhatItCannotUse: a connection string the driver
// cannot read is a config error that does not quote it; a server that
// does not answer is an error naming the store.
func TestPGTaskStoreRefusesWhatItCannotUse(t *testing.T) {
	_, err := openPGTaskStore(ctxFor(t), pgOptions{dsn: "postgres://tasks:s3cret-9f2b@db.example.com:notaport/tasks", agent: "a", maxTasks: 1, retention: time.Hour, lease: testLease})
	var cfgErr *configError
	if !errors.As(err, &cfgErr) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("an unreadable connection string: %v, want a config error without the password", err)
	}
	_, err = openPGTaskStore(ctxFor(t), pgOptions{dsn: fmt.Sprintf("postgres://tasks:s3cret-9f2b@127.0.0.1:%d/tasks?connect_timeout=2", freePort(t)), agent: "a",
		maxTasks: 1, retention: time.Hour, lease: testLease})
	if err == nil || !strings.Contains(err.Error(), "[tasks] store") || strings.Contains(err.Error(), "s3cret") || errors.As(err, &cfgErr) {
		t.Errorf("a server that does not answer: %v, want an error naming the store, without the password", err)
	}
}

// TestPGTaskStoreCancelReachesTheHost: a task canceled through one host
// stops the execution another host runs.
func TestPGTaskStoreCancelReachesTheHost(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	runner, other := openPG(t, dsn, "cancel-agent", 10, time.Hour), openPG(t, dsn, "cancel-agent", 10, time.Hour)
	ctx := asCaller(sharedScope)
	run, err := runner.run(ctx, "t1", true)
	if err != nil {
		t.Fatal(err)
	}
	defer run.end()
	if _, err := runner.Create(ctx, testTask("t1", "c", a2a.TaskStateWorking, time.Now())); err != nil {
		t.Fatal(err)
	}
	if busy, err := other.runningElsewhere(ctx, "t1"); err != nil || !busy {
		t.Errorf("the other host sees the task run elsewhere: %v, %v; want true", busy, err)
	}
	if busy, err := runner.runningElsewhere(ctx, "t1"); err != nil || busy {
		t.Errorf("the running host sees its own task run elsewhere: %v, %v; want false", busy, err)
	}
	stored, err := other.Get(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	canceled := *stored.Task
	event := a2a.NewStatusUpdateEvent(&canceled, a2a.TaskStateCanceled, nil)
	canceled.Status = event.Status
	if _, err := other.Update(ctx, &taskstore.UpdateRequest{Task: &canceled, Event: event, PrevVersion: stored.Version}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.canceled:
	case <-time.After(waitLimit):
		t.Fatal("the running host did not hear of the cancel")
	}
}

// TestPGTaskStoreFollowsAnotherHost: a task another host works on streams
// on this one: the task as it is, then each event as it is stored, up to
// the final one. A task nobody works on, or another caller's, is left to
// the SDK.
func TestPGTaskStoreFollowsAnotherHost(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	runner, other := openPG(t, dsn, "follow-agent", 10, time.Hour), openPG(t, dsn, "follow-agent", 10, time.Hour)
	ctx := asCaller(sharedScope)
	if _, err := runner.Create(ctx, testTask("idle", "c", a2a.TaskStateInputRequired, time.Now())); err != nil {
		t.Fatal(err)
	}
	run, err := runner.run(ctx, "t1", true)
	if err != nil {
		t.Fatal(err)
	}
	defer run.end()
	task := testTask("t1", "c", a2a.TaskStateWorking, time.Now())
	if _, err := runner.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ctx context.Context
		id  a2a.TaskID
	}{{ctx, "idle"}, {ctx, "unknown"}, {asCaller("bearer:b"), "t1"}} {
		if _, ok, err := other.follow(tc.ctx, tc.id); ok || err != nil {
			t.Errorf("follow %s as %s: %v, %v; want it left to the SDK", tc.id, caller(tc.ctx), ok, err)
		}
	}
	if _, ok, _ := runner.follow(ctx, "t1"); ok {
		t.Errorf("the running host follows its own task; want it left to the SDK")
	}
	events, ok, err := other.follow(ctx, "t1")
	if err != nil || !ok {
		t.Fatalf("follow: %v, %v", ok, err)
	}
	next, stop := iter.Pull2(events)
	defer stop()
	if ev, err, _ := next(); err != nil || ev.(*a2a.Task).Status.State != a2a.TaskStateWorking {
		t.Fatalf("first event %#v, %v; want the task as it is", ev, err)
	}
	artifact := a2a.NewArtifactEvent(task, a2a.NewTextPart("answer"))
	withArtifact := *task
	withArtifact.Artifacts = []*a2a.Artifact{artifact.Artifact}
	if _, err := runner.Update(ctx, &taskstore.UpdateRequest{Task: &withArtifact, Event: artifact, PrevVersion: 1}); err != nil {
		t.Fatal(err)
	}
	completed := a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil)
	finished := withArtifact
	finished.Status = completed.Status
	if _, err := runner.Update(ctx, &taskstore.UpdateRequest{Task: &finished, Event: completed, PrevVersion: 2}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err, more := next()
		if !more {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(a2a.StreamResponse{Event: ev})
		got = append(got, string(raw))
	}
	want := []string{mustJSON(t, a2a.StreamResponse{Event: artifact}), mustJSON(t, a2a.StreamResponse{Event: completed})}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("followed events:\n%s\nwant the artifact, then the completion:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPGTaskStoreSettlesAbandonedTasks: a host that dies leaves its
// unfinished tasks to the other hosts, which fail them once its lease has
// run out, saying why, and give up the places it kept for tasks it never
// stored; a host that shuts down fails its own at once.
func TestPGTaskStoreSettlesAbandonedTasks(t *testing.T) {
	tests := []struct {
		name string
		stop func(*pgTaskStore)
		why  string
	}{
		{"killed", (*pgTaskStore).kill, "stopped before it finished"},
		{"shut down", func(s *pgTaskStore) { _ = s.close(context.Background()) }, "shut down before it finished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn := pgtest.Shared(t).NewDatabase(t)
			dying, survivor := openPG(t, dsn, "settle-agent", 10, time.Hour), openPG(t, dsn, "settle-agent", 10, time.Hour)
			ctx := asCaller(sharedScope)
			for _, id := range []a2a.TaskID{"stored", "never-stored"} {
				if _, err := dying.run(ctx, id, true); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := dying.Create(ctx, testTask("stored", "c", a2a.TaskStateWorking, time.Now())); err != nil {
				t.Fatal(err)
			}
			stream, ok, err := survivor.follow(ctx, "stored")
			if err != nil || !ok {
				t.Fatalf("follow: %v, %v", ok, err)
			}
			tt.stop(dying)
			var last a2a.Event
			for ev, err := range stream {
				if err != nil {
					t.Fatal(err)
				}
				last = ev
			}
			status, ok := last.(*a2a.TaskStatusUpdateEvent)
			if !ok || status.Status.State != a2a.TaskStateFailed || !strings.Contains(messageText(status.Status.Message), tt.why) {
				t.Fatalf("the stream ended with %#v, want the task failed saying the host %s", last, tt.why)
			}
			got, err := survivor.Get(ctx, "stored")
			if err != nil || got.Task.Status.State != a2a.TaskStateFailed {
				t.Errorf("Get = %+v, %v; want the task failed", got, err)
			}
			waitFor(t, func() bool { return rowsOf(t, survivor) == 1 })
		})
	}
}

// TestPGTaskStoreAnswersWhenTheDatabaseStalls: with every process of the
// database stopped, each operation of the store fails within the store's
// own deadline with an error saying the database did not answer, where it
// waited on the caller's before; once the database goes on, so does the
// store.
func TestPGTaskStoreAnswersWhenTheDatabaseStalls(t *testing.T) {
	server := pgtest.Start(t, pgtest.Options{})
	s, err := openPGTaskStore(ctxFor(t), pgOptions{dsn: server.NewDatabase(t), agent: "stall-agent", maxTasks: 10, retention: time.Hour,
		lease: testLease, queryTimeout: time.Second})
	if err != nil {
		t.Fatalf("open the task store: %v", err)
	}
	t.Cleanup(func() { _ = s.close(context.Background()) })
	ctx := asCaller(sharedScope) // without a deadline of its own, as a client that waits for ever
	if _, err := s.Create(ctx, testTask("t1", "c1", a2a.TaskStateWorking, time.Now())); err != nil {
		t.Fatalf("Create: %v", err)
	}

	server.Freeze(t)
	operations := []struct {
		name string
		call func(context.Context) error
	}{
		{"Get", func(ctx context.Context) error { _, err := s.Get(ctx, "t1"); return err }},
		{"List", func(ctx context.Context) error { _, err := s.List(ctx, &a2a.ListTasksRequest{}); return err }},
		{"Create", func(ctx context.Context) error {
			_, err := s.Create(ctx, testTask("t2", "c1", a2a.TaskStateWorking, time.Now()))
			return err
		}},
		{"Update", func(ctx context.Context) error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: testTask("t1", "c1", a2a.TaskStateCompleted, time.Now())})
			return err
		}},
		{"run", func(ctx context.Context) error { _, err := s.run(ctx, "t3", true); return err }},
		{"runningElsewhere", func(ctx context.Context) error { _, err := s.runningElsewhere(ctx, "t1"); return err }},
		{"follow", func(ctx context.Context) error { _, _, err := s.follow(ctx, "t1"); return err }},
	}
	for _, op := range operations {
		answered := make(chan error, 1)
		go func() { answered <- op.call(ctx) }()
		select {
		case err := <-answered:
			if err == nil || !strings.Contains(err.Error(), "[tasks] store") || !strings.Contains(err.Error(), "did not answer within 1s") {
				t.Errorf("%s on a stopped database: %v, want an error saying the task store did not answer within 1s", op.name, err)
			}
		case <-time.After(waitLimit):
			t.Fatalf("%s still waits on the stopped database after %s", op.name, waitLimit)
		}
	}

	server.Thaw()
	if got, err := s.Get(ctx, "t1"); err != nil || got.Task.Status.State != a2a.TaskStateWorking {
		t.Errorf("Get once the database goes on = %+v, %v; want the task as stored", got, err)
	}
}

// TestStalledStoreFailsTheCall: a message sent to a host whose database is
// stopped is answered with an error saying the task store did not answer,
// within the store's deadline, not held until the client gives up.
func TestStalledStoreFailsTheCall(t *testing.T) {
	server := pgtest.Start(t, pgtest.Options{})
	t.Setenv("A2A_TEST_TASK_STORE", server.NewDatabase(t))
	h := startInProcess(t, parseConfig(t, echoConfig+"\n[tasks]\nstore = \"${A2A_TEST_TASK_STORE}\"\n"), Options{})
	server.Freeze(t)
	res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), nil) // fails the test at the client's limit
	var reply rpcResponse
	if err := json.Unmarshal(res.body, &reply); err != nil || reply.Error == nil {
		t.Fatalf("SendMessage with the database stopped: HTTP %d %s, want a JSON-RPC error", res.status, res.body)
	}
	if want := fmt.Sprintf("did not answer within %s", defaultQueryTimeout); !strings.Contains(reply.Error.Message, "[tasks] store") ||
		!strings.Contains(reply.Error.Message, want) {
		t.Errorf("SendMessage with the database stopped: error %d %q, want one naming [tasks] store that says it %s",
			reply.Error.Code, reply.Error.Message, want)
	}
}
