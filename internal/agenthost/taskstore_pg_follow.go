package agenthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/jackc/pgx/v5"
)

const (
	// notifyChannel is the channel hosts announce their writes of tasks on,
	// shared by every agent of the database.
	notifyChannel = "a2a_tasks"
	// followPoll is how often a stream of a task another host works on
	// looks for new events, should a notification have been lost.
	followPoll = 2 * time.Second
	// relisten is how long the host waits before it listens again after
	// losing its connection for notifications.
	relisten = time.Second
)

// startListening opens the connection that hears other hosts' writes.
func (s *pgTaskStore) startListening(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// listen hears notifications on conn until ctx ends, listening again on a
// new connection when one is lost. Whatever listens for news of a task
// (see watch) is woken then too: it may have missed some.
func (s *pgTaskStore) listen(ctx context.Context, conn *pgx.Conn) {
	defer s.done.Done()
	for {
		if conn != nil {
			err := s.hear(ctx, conn)
			_ = conn.Close(context.Background())
			if ctx.Err() != nil {
				return
			}
			s.logger.Warn("task store: lost the connection for other hosts' writes; listening again", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(relisten):
		}
		var err error
		if conn, err = s.startListening(ctx); err != nil {
			conn = nil
			continue
		}
		s.wakeAll()
	}
}

func (s *pgTaskStore) hear(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var heard notice
		if json.Unmarshal([]byte(n.Payload), &heard) != nil || heard.Agent != s.agent {
			continue
		}
		s.mu.Lock()
		if ex := s.running[heard.Task]; ex != nil && heard.State == a2a.TaskStateCanceled && heard.Host != s.host {
			ex.cancel()
		}
		for wake := range s.followers[heard.Task] {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
		s.mu.Unlock()
	}
}

// watch returns a channel that hears of each write of the task, until stop.
func (s *pgTaskStore) watch(id a2a.TaskID) (wake <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.followers[id] == nil {
		s.followers[id] = map[chan struct{}]bool{}
	}
	s.followers[id][ch] = true
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.followers[id], ch)
		if len(s.followers[id]) == 0 {
			delete(s.followers, id)
		}
	}
}

func (s *pgTaskStore) wakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, chans := range s.followers {
		for wake := range chans {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
}

// follow streams a task of the caller that another host works on, as the
// SDK streams one its own host works on: the task as it is, then each
// event stored for it after that, to the one that ends its execution. A
// task this host works on, an unknown one and one nobody works on are
// left to the SDK.
func (s *pgTaskStore) follow(ctx context.Context, id a2a.TaskID) (iter.Seq2[a2a.Event, error], bool, error) {
	if s.hasExecution(id) {
		return nil, false, nil
	}
	// Watching before reading the task, no write after it goes unheard.
	wake, stop := s.watch(id)
	var owner, runner string
	var version int64
	var raw []byte
	read, cancel := s.bounded(ctx)
	err := s.pool.QueryRow(read, `SELECT scope, coalesce(runner, ''), version, task FROM a2a_tasks
		WHERE agent_id = $1 AND task_id = $2 AND task IS NOT NULL AND `+running, s.agent, id).Scan(&owner, &runner, &version, &raw)
	cancel()
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && (owner != caller(ctx) || runner == s.host):
		stop()
		return nil, false, nil
	case err != nil:
		stop()
		return nil, false, s.storeError("read task "+string(id)+" from", err)
	}
	task, err := (&storedTask{raw: raw, id: id}).decode()
	if err != nil || task.Status.State.Terminal() {
		stop()
		return nil, false, err
	}
	return func(yield func(a2a.Event, error) bool) {
		defer stop()
		if yield(task, nil) {
			s.stream(ctx, id, version, wake, yield)
		}
	}, true, nil
}

// stream yields the events of the task stored after version, until one
// ends the stream, the task is gone, or ctx ends.
func (s *pgTaskStore) stream(ctx context.Context, id a2a.TaskID, version int64, wake <-chan struct{}, yield func(a2a.Event, error) bool) {
	poll := time.NewTicker(followPoll)
	defer poll.Stop()
	for {
		events, err := s.eventsAfter(ctx, id, version)
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, s.storeError("read the events of task "+string(id)+" from", err))
			}
			return
		}
		for _, e := range events {
			version = e.version
			if !yield(e.event, nil) || endsFollowing(e.event) {
				return
			}
		}
		if len(events) == 0 {
			gone, err := s.gone(ctx, id)
			switch {
			case err != nil:
				if ctx.Err() == nil {
					yield(nil, s.storeError("read task "+string(id)+" from", err))
				}
				return
			case gone:
				yield(nil, fmt.Errorf("%w: task %s was dropped from the task store while it was followed ([tasks] retention)", a2a.ErrTaskNotFound, id))
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
	}
}

type storedEvent struct {
	version int64
	event   a2a.Event
}

func (s *pgTaskStore) eventsAfter(ctx context.Context, id a2a.TaskID, version int64) ([]storedEvent, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT version, event FROM a2a_task_events WHERE agent_id = $1 AND task_id = $2 AND version > $3
		ORDER BY version`, s.agent, id, version)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (storedEvent, error) {
		var e storedEvent
		var raw []byte
		if err := row.Scan(&e.version, &raw); err != nil {
			return e, err
		}
		var sr a2a.StreamResponse
		if err := json.Unmarshal(raw, &sr); err != nil {
			return e, fmt.Errorf("read an event of task %s: %w", id, err)
		}
		e.event = sr.Event
		return e, nil
	})
}

func (s *pgTaskStore) gone(ctx context.Context, id a2a.TaskID) (bool, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var exists bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM a2a_tasks WHERE agent_id = $1 AND task_id = $2)", s.agent, id).Scan(&exists)
	return !exists, err
}

// endsFollowing reports whether an event ends a stream of the task, as the
// SDK ends one: a message, or a task or status that is final or asks for
// input.
func endsFollowing(event a2a.Event) bool {
	switch e := event.(type) {
	case *a2a.Message:
		return true
	case *a2a.TaskStatusUpdateEvent:
		return endsStream(e.Status.State)
	case *a2a.Task:
		return endsStream(e.Status.State)
	}
	return false
}
