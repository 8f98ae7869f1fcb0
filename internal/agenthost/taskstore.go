package agenthost

import (
	"container/list"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Page sizes of ListTasks, as the specification bounds them.
const (
	defaultPageSize = 50
	maxPageSize     = 100
)

// taskStore keeps tasks in memory, bounded by count and by age, and lists
// them per caller. The SDK's in-memory store never evicts and lists only
// for a named caller; this one evicts the least recently updated finished
// task first and scopes every read and write to the caller the host
// authenticated (one shared scope when the agent has no authentication).
//
// A task is never evicted while an execution works on it, nor, to make
// room, before it is finished: a task nobody can read any more could not
// be canceled either, and its work would go on unseen. When every place
// holds an unfinished task a new one is refused instead (see run).
type taskStore struct {
	maxTasks int
	maxAge   time.Duration
	now      func() time.Time

	mu    sync.Mutex
	tasks map[a2a.TaskID]*list.Element // of *storedTask
	order *list.List                   // least recently updated first
	// running holds the tasks an execution works on; reserved, those of
	// them not stored yet, whose places are kept for them.
	running  map[a2a.TaskID]bool
	reserved map[a2a.TaskID]bool
}

type storedTask struct {
	raw     []byte // the task as JSON: a private copy no caller can change
	owner   string
	version taskstore.TaskVersion
	updated time.Time // when the store last wrote it
	status  time.Time // the task's status timestamp, the listing order
	id      a2a.TaskID
	context string
	state   a2a.TaskState
}

var _ taskstore.Store = (*taskStore)(nil)

func newTaskStore(maxTasks int, maxAge time.Duration) *taskStore {
	return &taskStore{
		maxTasks: maxTasks,
		maxAge:   maxAge,
		now:      time.Now,
		tasks:    map[a2a.TaskID]*list.Element{},
		order:    list.New(),
		running:  map[a2a.TaskID]bool{},
		reserved: map[a2a.TaskID]bool{},
	}
}

// caller is the scope a call acts in: the user the host's interceptor set
// on the call context.
func caller(ctx context.Context) string {
	if callCtx, ok := a2asrv.CallContextFrom(ctx); ok && callCtx.User != nil {
		return callCtx.User.Name
	}
	return ""
}

func (s *taskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	entry, err := encodeTask(task, caller(ctx), s.now())
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[task.ID]; ok {
		return taskstore.TaskVersionMissing, taskstore.ErrTaskAlreadyExists
	}
	if s.reserved[task.ID] {
		delete(s.reserved, task.ID) // its place was kept when its execution began
	} else if !s.makeRoomLocked() {
		return taskstore.TaskVersionMissing, storeFullError(s.maxTasks)
	}
	entry.version = 1
	s.tasks[task.ID] = s.order.PushBack(entry)
	return entry.version, nil
}

func (s *taskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	entry, err := encodeTask(req.Task, caller(ctx), s.now())
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.tasks[req.Task.ID]
	if !ok || el.Value.(*storedTask).owner != entry.owner {
		return taskstore.TaskVersionMissing, a2a.ErrTaskNotFound
	}
	prev := el.Value.(*storedTask)
	if req.PrevVersion != taskstore.TaskVersionMissing && prev.version != req.PrevVersion {
		return taskstore.TaskVersionMissing, taskstore.ErrConcurrentModification
	}
	entry.version = prev.version + 1
	el.Value = entry
	s.order.MoveToBack(el)
	return entry.version, nil
}

func (s *taskStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	owner := caller(ctx)
	s.mu.Lock()
	s.dropExpiredLocked()
	el, ok := s.tasks[id]
	var entry *storedTask
	if ok {
		entry = el.Value.(*storedTask)
	}
	s.mu.Unlock()
	// Another caller's task is reported as missing, so task ids reveal
	// nothing across scopes (specification, section 3.3.2).
	if entry == nil || entry.owner != owner {
		return nil, a2a.ErrTaskNotFound
	}
	task, err := entry.decode()
	if err != nil {
		return nil, err
	}
	return &taskstore.StoredTask{Task: task, Version: entry.version, User: entry.owner}, nil
}

// List returns the caller's tasks, most recent status first, a page at a
// time. The page token is the position of the last task of the previous
// page, so tasks added meanwhile neither repeat nor shift a page.
func (s *taskStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	pageSize, after, err := readListRequest(req)
	if err != nil {
		return nil, err
	}

	owner := caller(ctx)
	s.mu.Lock()
	s.dropExpiredLocked()
	var matches []*storedTask
	for el := s.order.Front(); el != nil; el = el.Next() {
		if t := el.Value.(*storedTask); t.owner == owner && t.matches(req) {
			matches = append(matches, t)
		}
	}
	s.mu.Unlock()

	slices.SortFunc(matches, func(a, b *storedTask) int { return b.position().compare(a.position()) })
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(matches, *after, func(t *storedTask, c cursor) int { return c.compare(t.position()) })
		if start < len(matches) && matches[start].position().compare(*after) == 0 {
			start++
		}
	}
	page := matches[start:]
	next := ""
	if len(page) > pageSize {
		page = page[:pageSize]
		next = page[pageSize-1].position().String()
	}
	out := &a2a.ListTasksResponse{Tasks: make([]*a2a.Task, 0, len(page)), TotalSize: len(matches), PageSize: pageSize, NextPageToken: next}
	for _, entry := range page {
		task, err := entry.decode()
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, listed(task, req))
	}
	return out, nil
}

// listableStates are the states ListTasks filters by; the unspecified
// state, written out or left empty, filters by none.
var listableStates = map[a2a.TaskState]bool{
	a2a.TaskStateUnspecified: true, "TASK_STATE_UNSPECIFIED": true,
	a2a.TaskStateSubmitted: true, a2a.TaskStateWorking: true, a2a.TaskStateInputRequired: true, a2a.TaskStateAuthRequired: true,
	a2a.TaskStateCompleted: true, a2a.TaskStateCanceled: true, a2a.TaskStateFailed: true, a2a.TaskStateRejected: true,
}

// readListRequest checks a ListTasks request and returns its page size and
// the position its page starts after (nil for the first page).
func readListRequest(req *a2a.ListTasksRequest) (pageSize int, after *cursor, err error) {
	pageSize = req.PageSize
	switch {
	case pageSize == 0:
		pageSize = defaultPageSize
	case pageSize < 1 || pageSize > maxPageSize:
		return 0, nil, fmt.Errorf("%w: pageSize must be between 1 and %d, got %d", a2a.ErrInvalidParams, maxPageSize, pageSize)
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return 0, nil, fmt.Errorf("%w: historyLength must not be negative, got %d", a2a.ErrInvalidParams, *req.HistoryLength)
	}
	if !listableStates[req.Status] {
		return 0, nil, fmt.Errorf("%w: status %q is not a task state (such as %s)", a2a.ErrInvalidParams, req.Status, a2a.TaskStateCompleted)
	}
	if req.PageToken != "" {
		c, err := parseCursor(req.PageToken)
		if err != nil {
			return 0, nil, err
		}
		after = &c
	}
	return pageSize, after, nil
}

// listed is a task as ListTasks shows it: its history trimmed to what the
// request asks for, its artifacts only if asked for.
func listed(task *a2a.Task, req *a2a.ListTasksRequest) *a2a.Task {
	trimHistory(task, req.HistoryLength)
	if !req.IncludeArtifacts {
		task.Artifacts = nil
	}
	return task
}

// run tells the store an execution begins working on a task, new when it
// is not stored yet (see taskStorage). A new task gets its place now,
// before the executor does anything for it, or is refused with an error
// saying the store is full of unfinished tasks. Refusing it when its first
// event is stored would come too late: by then the executor may have
// started its work.
func (s *taskStore) run(_ context.Context, id a2a.TaskID, isNew bool) (*execution, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isNew {
		if !s.makeRoomLocked() {
			return nil, storeFullError(s.maxTasks)
		}
		s.reserved[id] = true
	}
	s.running[id] = true
	return &execution{end: func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.running, id)
		delete(s.reserved, id)
	}}, nil
}

// tracked is an executor whose executions the store knows of (see run). A
// task canceled on another host of the agent while this one works on it
// stops here too: its work is canceled, and a canceled status ends the
// execution, which the SDK settles with the state the store holds.
type tracked struct {
	a2asrv.AgentExecutor
	store taskStorage
}

func (e tracked) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		run, err := e.store.run(ctx, execCtx.TaskID, execCtx.StoredTask == nil)
		if err != nil {
			yield(nil, err)
			return
		}
		defer run.end()
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		var canceledElsewhere atomic.Bool
		if run.canceled != nil {
			go func() {
				select {
				case <-run.canceled:
					canceledElsewhere.Store(true)
					stop()
				case <-ctx.Done():
				}
			}()
		}
		for event, err := range e.AgentExecutor.Execute(ctx, execCtx) {
			if !yield(event, err) {
				return
			}
		}
		if canceledElsewhere.Load() {
			yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, nil), nil)
		}
	}
}

// storeFullError refuses a new task when every one of the max places holds
// an unfinished task.
func storeFullError(max int) error {
	return a2a.NewError(a2a.ErrInternalError, fmt.Sprintf("the task store is full of unfinished tasks: all %d places ([tasks] max_count) "+
		"hold tasks still running or not finished, which are never dropped; send this message again once some finish, or raise [tasks] max_count",
		max))
}

// dropExpiredLocked drops the tasks not updated within maxAge but those an
// execution still works on.
func (s *taskStore) dropExpiredLocked() {
	if s.maxAge <= 0 {
		return
	}
	cutoff := s.now().Add(-s.maxAge)
	for el := s.order.Front(); el != nil && el.Value.(*storedTask).updated.Before(cutoff); {
		next := el.Next()
		if !s.running[el.Value.(*storedTask).id] {
			s.removeLocked(el)
		}
		el = next
	}
}

// makeRoomLocked makes a place for one more task under maxTasks, counting
// the places kept for tasks not stored yet: it drops expired tasks, then
// the least recently updated finished ones. It reports false when every
// place holds an unfinished task.
func (s *taskStore) makeRoomLocked() bool {
	s.dropExpiredLocked()
	full := func() bool { return s.maxTasks > 0 && s.order.Len()+len(s.reserved) >= s.maxTasks }
	for el := s.order.Front(); el != nil && full(); {
		next := el.Next()
		if t := el.Value.(*storedTask); t.state.Terminal() && !s.running[t.id] {
			s.removeLocked(el)
		}
		el = next
	}
	return !full()
}

func (s *taskStore) removeLocked(el *list.Element) {
	delete(s.tasks, el.Value.(*storedTask).id)
	s.order.Remove(el)
}

// encodeTask is task as the stores keep it: a private copy, stamped with
// now when its status has no timestamp, so that it sorts where it belongs.
func encodeTask(task *a2a.Task, owner string, now time.Time) (*storedTask, error) {
	if task == nil || task.ID == "" || task.ContextID == "" {
		return nil, fmt.Errorf("%w: a stored task needs an id and a context id", a2a.ErrInternalError)
	}
	status := now
	if task.Status.Timestamp != nil {
		status = *task.Status.Timestamp
	} else {
		// A status without a timestamp would sort arbitrarily; the store
		// stamps it with the time it learnt of it.
		copied := *task
		copied.Status.Timestamp = &now
		task = &copied
	}
	raw, err := json.Marshal(task)
	if err != nil {
		return nil, fmt.Errorf("store task %s: %w", task.ID, err)
	}
	return &storedTask{raw: raw, owner: owner, updated: now, status: status, id: task.ID, context: task.ContextID, state: task.Status.State}, nil
}

func (t *storedTask) decode() (*a2a.Task, error) {
	var task a2a.Task
	if err := json.Unmarshal(t.raw, &task); err != nil {
		return nil, fmt.Errorf("read stored task %s: %w", t.id, err)
	}
	return &task, nil
}

func (t *storedTask) matches(req *a2a.ListTasksRequest) bool {
	switch {
	case req.ContextID != "" && t.context != req.ContextID:
		return false
	case req.Status != a2a.TaskStateUnspecified && t.state != req.Status:
		return false
	case req.StatusTimestampAfter != nil && t.status.Before(*req.StatusTimestampAfter):
		return false
	}
	return true
}

func trimHistory(task *a2a.Task, length *int) {
	switch {
	case length == nil:
	case *length == 0:
		task.History = nil
	case *length < len(task.History):
		task.History = task.History[len(task.History)-*length:]
	}
}

// cursor is a task's place in the listing order: status time, then id.
type cursor struct {
	at time.Time
	id a2a.TaskID
}

func (t *storedTask) position() cursor { return cursor{at: t.status, id: t.id} }

func (c cursor) compare(o cursor) int {
	if n := c.at.Compare(o.at); n != 0 {
		return n
	}
	return strings.Compare(string(c.id), string(o.id))
}

func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.at.UTC().Format(time.RFC3339Nano) + " " + string(c.id)))
}

func parseCursor(token string) (cursor, error) {
	invalid := fmt.Errorf("%w: pageToken %q is not a token this agent issued; start again without one", a2a.ErrInvalidParams, token)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return cursor{}, invalid
	}
	at, id, ok := strings.Cut(string(raw), " ")
	if !ok || id == "" || checkID("pageToken", id) != nil {
		return cursor{}, invalid
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return cursor{}, invalid
	}
	return cursor{at: t, id: a2a.TaskID(id)}, nil
}

// terminalSubscriptions answers SubscribeToTask of a task in a terminal
// state, and a message sent to one, with UnsupportedOperationError, as the
// specification prescribes (sections 3.1.1, 3.1.2 and 9.4.6); the SDK would
// report the subscribed task as not found, since nothing runs for it any
// more, and the message as invalid params.
type terminalSubscriptions struct {
	a2asrv.PassthroughCallInterceptor
	store taskStorage
}

func (s terminalSubscriptions) Before(ctx context.Context, callCtx *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	var id a2a.TaskID
	advice := "subscribe only to a task that is still running, or read it with GetTask"
	switch p := req.Payload.(type) {
	case *a2a.SubscribeToTaskRequest:
		id = p.ID
	case *a2a.SendMessageRequest:
		if p.Message != nil {
			id = p.Message.TaskID
		}
		advice = "it takes no more messages; send the message without a taskId to start a new task"
	}
	if id == "" {
		return ctx, nil, nil
	}
	stored, err := s.store.Get(ctx, id)
	if err == nil && stored.Task.Status.State.Terminal() {
		return ctx, nil, fmt.Errorf("%w: task %s is %s; %s", a2a.ErrUnsupportedOperation, id, stored.Task.Status.State, advice)
	}
	return ctx, nil, nil
}
