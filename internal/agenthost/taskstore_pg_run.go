package agenthost

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/jackc/pgx/v5"
)

// pgExecution is an execution this host runs.
type pgExecution struct {
	canceled chan struct{}
	once     sync.Once
}

// cancel tells the execution another host canceled its task.
func (e *pgExecution) cancel() { e.once.Do(func() { close(e.canceled) }) }

// run takes the lease of the task for this host: for a new task, together
// with its place, which makeRoom finds or refuses. The lease is renewed
// until the execution ends (see keep), and let go of with the write that
// finishes the task or asks for input (see Update).
func (s *pgTaskStore) run(ctx context.Context, id a2a.TaskID, isNew bool) (*execution, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	lease := s.lease.Microseconds()
	var err error
	if isNew {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := s.makeRoom(ctx, tx); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO a2a_tasks (agent_id, task_id, scope, runner, lease_until)
				VALUES ($1, $2, $3, $4, now() + $5 * interval '1 microsecond')`, s.agent, id, caller(ctx), s.host, lease)
			return err
		})
	} else {
		_, err = s.pool.Exec(ctx, `UPDATE a2a_tasks SET runner = $3, lease_until = now() + $4 * interval '1 microsecond'
			WHERE agent_id = $1 AND task_id = $2`, s.agent, id, s.host, lease)
	}
	if err != nil {
		return nil, s.failure("take task "+string(id), err)
	}
	ex := &pgExecution{canceled: make(chan struct{})}
	s.mu.Lock()
	s.running[id] = ex
	s.mu.Unlock()
	return &execution{canceled: ex.canceled, end: func() { s.release(id, ex) }}, nil
}

// release forgets an ended execution and gives up the place it kept, if it
// stored no task there (it answered with a message, or failed first).
func (s *pgTaskStore) release(id a2a.TaskID, ex *pgExecution) {
	s.mu.Lock()
	if s.running[id] == ex {
		delete(s.running, id)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM a2a_tasks WHERE agent_id = $1 AND task_id = $2 AND task IS NULL AND runner = $3",
		s.agent, id, s.host); err != nil {
		s.logger.Warn("task store: could not give up the place of a task never stored; it goes once its lease runs out", "task", id, "error", err)
	}
}

// runningElsewhere reports whether another host holds the lease of the
// caller's task.
func (s *pgTaskStore) runningElsewhere(ctx context.Context, id a2a.TaskID) (bool, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var owner, runner string
	err := s.pool.QueryRow(ctx, `SELECT scope, coalesce(runner, '') FROM a2a_tasks WHERE agent_id = $1 AND task_id = $2 AND task IS NOT NULL AND `+running,
		s.agent, id).Scan(&owner, &runner)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, s.storeError("read task "+string(id)+" from", err)
	}
	return owner == caller(ctx) && runner != s.host, nil
}

// keep renews the leases of this host's executions, tells them of cancels
// they may not have heard of, and sweeps the store, every third of a lease
// until ctx ends.
func (s *pgTaskStore) keep(ctx context.Context) {
	defer s.done.Done()
	tick := time.NewTicker(s.lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.keepOnce(ctx)
	}
}

// keepOnce renews and sweeps once, each within the time the database has
// to answer, so that a stalled database delays the next round rather than
// stopping them all.
func (s *pgTaskStore) keepOnce(ctx context.Context) {
	bounded, cancel := s.bounded(ctx)
	defer cancel()
	if err := s.renew(bounded); err != nil && ctx.Err() == nil {
		s.logger.Warn("task store: could not renew the leases of the tasks this host works on; "+
			"other hosts fail them if this lasts past their lease", "lease", s.lease, "error", s.storeError("renew leases in", err))
	}
	bounded, cancel = s.bounded(ctx)
	defer cancel()
	if err := s.sweep(bounded); err != nil && ctx.Err() == nil {
		s.logger.Warn("task store: could not sweep the store", "error", s.storeError("sweep", err))
	}
}

// renew extends the leases of this host's executions and cancels those
// whose task another host canceled: the notification may have been lost.
func (s *pgTaskStore) renew(ctx context.Context) error {
	s.mu.Lock()
	ids := make([]string, 0, len(s.running))
	for id := range s.running {
		ids = append(ids, string(id))
	}
	s.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.pool.Query(ctx, `WITH renewed AS (UPDATE a2a_tasks SET lease_until = now() + $4 * interval '1 microsecond'
			WHERE agent_id = $1 AND runner = $2 AND task_id = ANY($3))
		SELECT task_id FROM a2a_tasks WHERE agent_id = $1 AND task_id = ANY($3) AND state = $5`,
		s.agent, s.host, ids, s.lease.Microseconds(), string(a2a.TaskStateCanceled))
	if err != nil {
		return err
	}
	canceled, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range canceled {
		if ex := s.running[a2a.TaskID(id)]; ex != nil {
			ex.cancel()
		}
	}
	return nil
}

// sweep fails the agent's unfinished tasks whose host's lease ran out,
// and drops the tasks past the retention. Every host of the agent sweeps;
// row locks keep two from settling the same task.
func (s *pgTaskStore) sweep(ctx context.Context) error {
	if err := s.settle(ctx, "lease_until < now()", nil, "the agent host working on this task stopped before it finished "+
		"(it held the task's lease no longer); send the message again"); err != nil {
		return err
	}
	return s.dropExpired(ctx, s.pool)
}

// settle fails the agent's unfinished tasks held by a runner the SQL
// condition which names (with its arguments from $3 on), saying why in
// their status, and gives up the places such runners kept for tasks never
// stored.
func (s *pgTaskStore) settle(ctx context.Context, which string, whichArgs []any, why string) error {
	args := append([]any{s.agent, terminalStates}, whichArgs...)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM a2a_tasks WHERE agent_id = $1 AND task IS NULL AND NOT state = ANY($2) AND runner IS NOT NULL AND "+
			which, args...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT task_id, version, task FROM a2a_tasks WHERE agent_id = $1 AND task IS NOT NULL
			AND runner IS NOT NULL AND NOT state = ANY($2) AND `+which+` FOR UPDATE SKIP LOCKED`, args...)
		if err != nil {
			return err
		}
		type abandoned struct {
			id      string
			version int64
			raw     []byte
		}
		found, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (abandoned, error) {
			var a abandoned
			return a, row.Scan(&a.id, &a.version, &a.raw)
		})
		if err != nil {
			return err
		}
		for _, a := range found {
			if err := s.fail(ctx, tx, a.id, a.version, a.raw, why); err != nil {
				return err
			}
		}
		return nil
	})
}

// fail writes a task failed, with why as its status message, the way the
// SDK writes a status: the previous status message goes to the history.
func (s *pgTaskStore) fail(ctx context.Context, tx pgx.Tx, id string, version int64, raw []byte, why string) error {
	task, err := (&storedTask{raw: raw, id: a2a.TaskID(id)}).decode()
	if err != nil {
		return err
	}
	if task.Status.Message != nil {
		task.History = append(task.History, task.Status.Message)
	}
	event := a2a.NewStatusUpdateEvent(task, a2a.TaskStateFailed, a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart(why)))
	task.Status = event.Status
	entry, err := encodeTask(task, "", time.Now())
	if err != nil {
		return err
	}
	next := taskstore.TaskVersion(version + 1)
	if _, err := tx.Exec(ctx, `UPDATE a2a_tasks SET state = $3, status_ns = $4, version = $5, task = $6, updated_at = now(),
		runner = NULL, lease_until = NULL WHERE agent_id = $1 AND task_id = $2`,
		s.agent, id, entry.state, entry.status.UnixNano(), int64(next), entry.raw); err != nil {
		return err
	}
	s.logger.Warn("task store: failed a task its host left unfinished", "task", id, "reason", why)
	return s.announce(ctx, tx, task.ID, next, event, entry.state)
}

// close stops listening and keeping leases, then fails the tasks this
// host still works on, which nothing finishes once the host is gone, so
// that they read failed at once rather than once their lease runs out.
func (s *pgTaskStore) close(ctx context.Context) error {
	s.stop()
	s.done.Wait()
	s.mu.Lock()
	working := len(s.running)
	s.mu.Unlock()
	var err error
	if working > 0 {
		bounded, cancel := s.bounded(ctx)
		defer cancel()
		err = s.settle(bounded, "runner = $3", []any{s.host}, "the agent host working on this task shut down before it finished; send the message again")
	}
	s.pool.Close()
	if err != nil {
		return fmt.Errorf("task store: could not fail the tasks this host still worked on (other hosts fail them once their lease runs out): %w", err)
	}
	return nil
}

// hasExecution reports whether this host runs an execution of the task.
func (s *pgTaskStore) hasExecution(id a2a.TaskID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id] != nil
}
