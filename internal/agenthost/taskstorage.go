package agenthost

import (
	"context"
	"fmt"
	"iter"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// taskStorage is where a host keeps its tasks: in its own memory
// (taskStore, the default), or in a PostgreSQL database every host of the
// agent shares ([tasks] store, pgTaskStore), so that the replicas of an
// agent answer task calls as one agent would. Besides the SDK's store it
// hears of the executions its host runs, and tells the host what it needs
// to know of the work other hosts do.
type taskStorage interface {
	taskstore.Store
	// run tells the store an execution begins working on a task, new when
	// it is not stored yet, and returns its hold on the task, which it
	// ends when the execution ends. A new task is refused when every place
	// of [tasks] max_count holds an unfinished task.
	run(ctx context.Context, id a2a.TaskID, isNew bool) (*execution, error)
	// runningElsewhere reports whether another host works on the caller's
	// task now.
	runningElsewhere(ctx context.Context, id a2a.TaskID) (bool, error)
	// follow streams the caller's task while another host works on it: the
	// task as it is, then the events that host stores for it, up to a
	// final one. ok is false when no other host works on it.
	follow(ctx context.Context, id a2a.TaskID) (events iter.Seq2[a2a.Event, error], ok bool, err error)
	// close settles the tasks this host still works on, which nothing will
	// finish once it is gone, and releases the store.
	close(ctx context.Context) error
}

// execution is an execution's hold on its task.
type execution struct {
	end func()
	// canceled is closed when another host cancels the task; nil when no
	// other host can.
	canceled <-chan struct{}
}

// openTaskStorage opens the store the config names, or one in memory.
func openTaskStorage(ctx context.Context, cfg *agentconfig.Config, logger *slog.Logger) (taskStorage, error) {
	if cfg.Tasks.Store == "" {
		return newTaskStore(cfg.Tasks.MaxCount, cfg.Tasks.RetentionDuration()), nil
	}
	return openPGTaskStore(ctx, pgOptions{
		dsn:       cfg.Tasks.Store,
		agent:     cfg.ID(),
		maxTasks:  cfg.Tasks.MaxCount,
		retention: cfg.Tasks.RetentionDuration(),
		lease:     defaultLease,
		logger:    logger,
	})
}

// A host alone knows every execution of its tasks.
func (s *taskStore) runningElsewhere(context.Context, a2a.TaskID) (bool, error) { return false, nil }

func (s *taskStore) follow(context.Context, a2a.TaskID) (iter.Seq2[a2a.Event, error], bool, error) {
	return nil, false, nil
}

func (s *taskStore) close(context.Context) error { return nil }

// elsewhereGuard refuses a message to a task another host works on, as a
// host refuses one to a task it works on itself: two executions of one
// task would interleave their events.
type elsewhereGuard struct {
	a2asrv.PassthroughCallInterceptor
	store taskStorage
}

func (g elsewhereGuard) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	send, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || send.Message == nil || send.Message.TaskID == "" {
		return ctx, nil, nil
	}
	busy, err := g.store.runningElsewhere(ctx, send.Message.TaskID)
	switch {
	case err != nil:
		return ctx, nil, err
	case busy:
		return ctx, nil, a2a.NewError(a2a.ErrInternalError, fmt.Sprintf("task %s is still being worked on, by another replica of this agent; "+
			"send this message once the task finishes or asks for input (follow it with GetTask or SubscribeToTask)", send.Message.TaskID))
	}
	return ctx, nil, nil
}

// followElsewhere answers SubscribeToTask of a task another host works on
// from the events that host stores, where the SDK knows only the
// executions of its own host and would report the task as not found.
type followElsewhere struct {
	a2asrv.RequestHandler
	store taskStorage
}

// followAcrossHosts puts followElsewhere behind the SDK's interceptors, so
// that a subscription is scoped to its caller like any call.
func followAcrossHosts(handler a2asrv.RequestHandler, store taskStorage) {
	intercepted := handler.(*a2asrv.InterceptedHandler)
	intercepted.Handler = followElsewhere{RequestHandler: intercepted.Handler, store: store}
}

func (h followElsewhere) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if req != nil {
			events, ok, err := h.store.follow(ctx, req.ID)
			if err != nil {
				yield(nil, err)
				return
			}
			if ok {
				for event, err := range events {
					if !yield(event, err) || err != nil {
						return
					}
				}
				return
			}
		}
		for event, err := range h.RequestHandler.SubscribeToTask(ctx, req) {
			if !yield(event, err) {
				return
			}
		}
	}
}
