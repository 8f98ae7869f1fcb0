package agenthost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// defaultLease is how long a host's hold on a task it works on lasts
	// unless renewed; the host renews it every third of that. A host that
	// dies (a killed pod, a crashed process) leaves its unfinished tasks
	// for about this long before another host of the agent fails them.
	defaultLease = 15 * time.Second
	// openTimeout bounds reaching the database and making its tables when
	// the host starts.
	openTimeout = 30 * time.Second
	// connectTimeout bounds one connection attempt, unless the connection
	// string sets connect_timeout.
	connectTimeout = 10 * time.Second
	// releaseTimeout bounds what the store writes after an execution ends,
	// on a context of its own: the execution's may be canceled by then.
	releaseTimeout = 10 * time.Second
	// defaultQueryTimeout bounds each operation of the store, all its
	// statements together, so that a database that stalls (a stopped
	// server, a lost network) fails a call with an error saying so rather
	// than holding it, and its place in the host's call budget, until the
	// client gives up.
	defaultQueryTimeout = 10 * time.Second
)

// pgTaskStore keeps an agent's tasks in PostgreSQL ([tasks] store), where
// every host of the agent (each replica of a Deployment) reads and writes
// them, so that a task call answers the same whichever host it reaches.
// Several agents may share a database: each sees only its own tasks, and
// each caller only the tasks of its scope, as in the memory store, whose
// rules it follows for the agent as a whole: at most [tasks] max_count
// tasks, only finished ones dropped to make room, a new one refused when
// every place holds an unfinished task, and a task not updated within
// [tasks] retention dropped unless a host works on it.
//
// A host holds a lease on each task it works on and renews it while it
// works (see run); a task left unfinished by a host whose lease ran out is
// failed by the next host of the agent that sweeps the store (see sweep).
// Hosts hear of one another's writes through LISTEN/NOTIFY (see listen),
// and every write of a task also stores the event it streams, so that
// SubscribeToTask on one host follows a task another host works on (see
// follow), and a cancel made on one host stops the work on another.
type pgTaskStore struct {
	pool      *pgxpool.Pool
	agent     string
	host      string // this host's name for its leases
	maxTasks  int
	retention time.Duration
	lease     time.Duration
	// queryTimeout bounds each operation (see bounded).
	queryTimeout time.Duration
	logger       *slog.Logger

	mu sync.Mutex
	// running holds the executions this host runs, by task; followers,
	// the streams of tasks other hosts run, woken when a task is written.
	running   map[a2a.TaskID]*pgExecution
	followers map[a2a.TaskID]map[chan struct{}]bool

	stop context.CancelFunc
	done sync.WaitGroup
}

var _ taskStorage = (*pgTaskStore)(nil)

// pgOptions configure a pgTaskStore.
type pgOptions struct {
	dsn       string
	agent     string
	maxTasks  int
	retention time.Duration
	lease     time.Duration
	// queryTimeout bounds each operation; defaultQueryTimeout when zero.
	queryTimeout time.Duration
	logger       *slog.Logger
}

// openPGTaskStore connects to the database, makes the store's tables if
// they are missing, and starts listening for other hosts' writes and
// renewing and sweeping leases, until close.
func openPGTaskStore(ctx context.Context, opts pgOptions) (*pgTaskStore, error) {
	config, err := pgxpool.ParseConfig(opts.dsn)
	if err != nil {
		// The driver's message may quote the connection string.
		return nil, &configError{errors.New("[tasks] store is not a PostgreSQL connection string the agent host can read: " +
			"write a URL such as postgres://user:password@host:5432/dbname or key=value settings such as \"host=... dbname=... user=...\"")}
	}
	if config.ConnConfig.ConnectTimeout == 0 {
		config.ConnConfig.ConnectTimeout = connectTimeout
	}
	config.ConnConfig.RuntimeParams["application_name"] = "a2a agent " + opts.agent
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, storeError("connect to", err)
	}
	s := &pgTaskStore{
		pool: pool, agent: opts.agent, host: hostName(), maxTasks: opts.maxTasks,
		retention: opts.retention, lease: opts.lease, queryTimeout: opts.queryTimeout, logger: opts.logger,
		running: map[a2a.TaskID]*pgExecution{}, followers: map[a2a.TaskID]map[chan struct{}]bool{},
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.queryTimeout <= 0 {
		s.queryTimeout = defaultQueryTimeout
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, storeError("connect to", err)
	}
	if err := makeSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, storeError("make the tables of", err)
	}
	listener, err := s.startListening(ctx)
	if err != nil {
		pool.Close()
		return nil, storeError("listen for other hosts' writes in", err)
	}
	background, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.done.Add(2)
	go s.listen(background, listener)
	go s.keep(background)
	return s, nil
}

// storeError says, on one line, what the host could not do with the
// database; the driver's errors name the server and user, never the
// password.
func storeError(doing string, err error) error {
	return fmt.Errorf("could not %s the task store ([tasks] store): %s", doing, strings.Join(strings.Fields(err.Error()), " "))
}

// bounded gives one operation of the store the time the database has to
// answer all of it.
func (s *pgTaskStore) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.queryTimeout)
}

// storeError says what the host could not do with the database, and when
// it did not answer in time, that it did not, which the driver's own text
// ("timeout: context deadline exceeded") leaves the operator to guess.
func (s *pgTaskStore) storeError(doing string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("could not %s the task store ([tasks] store): the database did not answer within %s; "+
			"check that its server is running and reachable from the agent", doing, s.queryTimeout)
	}
	return storeError(doing, err)
}

// hostName names this host in the leases it holds: its host name (a pod's
// name) and a random suffix, as two hosts may share a name.
func hostName() string {
	name, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return strings.TrimPrefix(name+"/", "/") + hex.EncodeToString(b)
}

// running is the SQL condition of a task a host works on: its lease holds.
const running = "(runner IS NOT NULL AND lease_until >= now())"

// kept is the SQL condition of a task within the retention ($n, in
// microseconds), or one a host works on: what Get and List may show.
func kept(n int) string {
	return fmt.Sprintf("(updated_at >= now() - $%d * interval '1 microsecond' OR %s)", n, running)
}

// terminalStates are the states of finished tasks, as the SQL of the store
// compares them.
var terminalStates = []string{string(a2a.TaskStateCompleted), string(a2a.TaskStateCanceled), string(a2a.TaskStateFailed), string(a2a.TaskStateRejected)}

// endsStream reports whether a task in state is done with its execution, as
// the SDK ends a stream: finished, or waiting for the client's input.
func endsStream(state a2a.TaskState) bool {
	return state.Terminal() || state == a2a.TaskStateInputRequired
}

func (s *pgTaskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	entry, err := encodeTask(task, caller(ctx), time.Now())
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	event, err := entry.decode()
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The place run kept for the task, if it did.
		tag, err := tx.Exec(ctx, `UPDATE a2a_tasks SET scope = $3, context_id = $4, state = $5, status_ns = $6, version = 1, task = $7,
			updated_at = now() WHERE agent_id = $1 AND task_id = $2 AND task IS NULL`,
			s.agent, entry.id, entry.owner, entry.context, entry.state, entry.status.UnixNano(), entry.raw)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			if err := s.makeRoom(ctx, tx); err != nil {
				return err
			}
			tag, err = tx.Exec(ctx, `INSERT INTO a2a_tasks (agent_id, task_id, scope, context_id, state, status_ns, version, task)
				VALUES ($1, $2, $3, $4, $5, $6, 1, $7) ON CONFLICT DO NOTHING`,
				s.agent, entry.id, entry.owner, entry.context, entry.state, entry.status.UnixNano(), entry.raw)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return taskstore.ErrTaskAlreadyExists
			}
		}
		return s.announce(ctx, tx, entry.id, 1, event, entry.state)
	})
	if err != nil {
		return taskstore.TaskVersionMissing, s.failure("store task "+string(task.ID), err)
	}
	return 1, nil
}

func (s *pgTaskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	entry, err := encodeTask(req.Task, caller(ctx), time.Now())
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	var version taskstore.TaskVersion
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var owner, prevState string
		var prev int64
		err := tx.QueryRow(ctx, `SELECT scope, state, version FROM a2a_tasks WHERE agent_id = $1 AND task_id = $2 AND task IS NOT NULL
			FOR UPDATE`, s.agent, entry.id).Scan(&owner, &prevState, &prev)
		switch {
		case errors.Is(err, pgx.ErrNoRows), err == nil && owner != entry.owner:
			return a2a.ErrTaskNotFound
		case err != nil:
			return err
		case req.PrevVersion != taskstore.TaskVersionMissing && taskstore.TaskVersion(prev) != req.PrevVersion:
			return taskstore.ErrConcurrentModification
		}
		version = taskstore.TaskVersion(prev + 1)
		// A task done with its execution is no longer worked on: its host
		// lets go of it with the write that says so, so that no moment
		// shows it unfinished with nobody holding it.
		_, err = tx.Exec(ctx, `UPDATE a2a_tasks SET context_id = $3, state = $4, status_ns = $5, version = $6, task = $7, updated_at = now(),
			runner = CASE WHEN $8 THEN NULL ELSE runner END, lease_until = CASE WHEN $8 THEN NULL ELSE lease_until END
			WHERE agent_id = $1 AND task_id = $2`,
			s.agent, entry.id, entry.context, entry.state, entry.status.UnixNano(), version, entry.raw, endsStream(entry.state))
		if err != nil {
			return err
		}
		return s.announce(ctx, tx, entry.id, version, streamedEvent(req, a2a.TaskState(prevState)), entry.state)
	})
	if err != nil {
		return taskstore.TaskVersionMissing, s.failure("update task "+string(req.Task.ID), err)
	}
	return version, nil
}

// streamedEvent is the event a write of a task streams to the hosts that
// follow it: the event that caused the write when it says what changed,
// else the task as written. A message the write added to the history (a
// client's follow-up) streams nothing, as on the host that runs the task.
func streamedEvent(req *taskstore.UpdateRequest, prevState a2a.TaskState) a2a.Event {
	switch e := req.Event.(type) {
	case *a2a.Message:
		return nil
	case *a2a.TaskStatusUpdateEvent:
		if e.Status.State == req.Task.Status.State {
			return e
		}
	case *a2a.TaskArtifactUpdateEvent:
		if req.Task.Status.State == prevState {
			return e
		}
	}
	return req.Task
}

// failure passes on what the SDK tells apart (a missing task, a conflicting
// write, a full store) and says of anything else that the store failed.
func (s *pgTaskStore) failure(doing string, err error) error {
	var a2aErr *a2a.Error
	switch {
	case errors.Is(err, a2a.ErrTaskNotFound), errors.Is(err, taskstore.ErrConcurrentModification),
		errors.Is(err, taskstore.ErrTaskAlreadyExists), errors.As(err, &a2aErr):
		return err
	}
	return s.storeError(doing+" in", err)
}

func (s *pgTaskStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	var owner string
	var version int64
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT scope, version, task FROM a2a_tasks WHERE agent_id = $1 AND task_id = $2 AND task IS NOT NULL AND `+kept(3),
		s.agent, id, s.retention.Microseconds()).Scan(&owner, &version, &raw)
	switch {
	// Another caller's task is reported as missing, so task ids reveal
	// nothing across scopes (specification, section 3.3.2).
	case errors.Is(err, pgx.ErrNoRows), err == nil && owner != caller(ctx):
		return nil, a2a.ErrTaskNotFound
	case err != nil:
		return nil, s.storeError("read task "+string(id)+" from", err)
	}
	task, err := (&storedTask{raw: raw, id: id}).decode()
	if err != nil {
		return nil, err
	}
	return &taskstore.StoredTask{Task: task, Version: taskstore.TaskVersion(version), User: owner}, nil
}

// List returns the caller's tasks as the memory store lists them: most
// recent status first, a page at a time, a page token being the position
// of the last task of the previous page. The count and the page are read
// from one snapshot.
func (s *pgTaskStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	pageSize, after, err := readListRequest(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	args := []any{s.agent, caller(ctx), s.retention.Microseconds()}
	where := []string{"agent_id = $1", "scope = $2", "task IS NOT NULL", kept(3)}
	filter := func(condition string, value any) {
		args = append(args, value)
		where = append(where, fmt.Sprintf(condition, len(args)))
	}
	if req.ContextID != "" {
		filter("context_id = $%d", req.ContextID)
	}
	if req.Status != a2a.TaskStateUnspecified {
		filter("state = $%d", string(req.Status))
	}
	if req.StatusTimestampAfter != nil {
		filter("status_ns >= $%d", req.StatusTimestampAfter.UnixNano())
	}
	matching := strings.Join(where, " AND ")
	out := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, PageSize: pageSize}
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM a2a_tasks WHERE "+matching, args...).Scan(&out.TotalSize); err != nil {
			return err
		}
		pageArgs := append(append([]any{}, args...), pageSize+1)
		page := matching
		if after != nil {
			pageArgs = append(pageArgs, after.at.UnixNano(), string(after.id))
			page += fmt.Sprintf(" AND (status_ns, task_id) < ($%d, $%d)", len(pageArgs)-1, len(pageArgs))
		}
		rows, err := tx.Query(ctx, fmt.Sprintf("SELECT task_id, status_ns, task FROM a2a_tasks WHERE %s ORDER BY status_ns DESC, task_id DESC LIMIT $%d",
			page, len(args)+1), pageArgs...)
		if err != nil {
			return err
		}
		var last cursor
		for rows.Next() {
			var id string
			var statusNS int64
			var raw []byte
			if err := rows.Scan(&id, &statusNS, &raw); err != nil {
				return err
			}
			if len(out.Tasks) == pageSize {
				out.NextPageToken = last.String()
				break
			}
			task, err := (&storedTask{raw: raw, id: a2a.TaskID(id)}).decode()
			if err != nil {
				return err
			}
			out.Tasks = append(out.Tasks, listed(task, req))
			last = cursor{at: time.Unix(0, statusNS), id: a2a.TaskID(id)}
		}
		rows.Close()
		return rows.Err()
	})
	if err != nil {
		return nil, s.failure("list tasks", err)
	}
	return out, nil
}

// execer runs a statement, in a transaction or on a connection of the pool.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// notice is what a host announces of a write: which task, what state it is
// in now, and who wrote it.
type notice struct {
	Agent string        `json:"agent"`
	Task  a2a.TaskID    `json:"task"`
	State a2a.TaskState `json:"state"`
	Host  string        `json:"host"`
}

// announce stores the event a write of a task streams, if any, and tells
// the other hosts of the write once the transaction commits.
func (s *pgTaskStore) announce(ctx context.Context, tx pgx.Tx, id a2a.TaskID, version taskstore.TaskVersion, event a2a.Event, state a2a.TaskState) error {
	payload, err := json.Marshal(notice{Agent: s.agent, Task: id, State: state, Host: s.host})
	if err != nil {
		return err
	}
	if event == nil {
		_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", notifyChannel, string(payload))
		return err
	}
	raw, err := json.Marshal(a2a.StreamResponse{Event: event})
	if err != nil {
		return fmt.Errorf("encode an event of task %s: %w", id, err)
	}
	_, err = tx.Exec(ctx, `WITH recorded AS (INSERT INTO a2a_task_events (agent_id, task_id, version, event) VALUES ($1, $2, $3, $4))
		SELECT pg_notify($5, $6)`, s.agent, id, int64(version), raw, notifyChannel, string(payload))
	return err
}

// makeRoom makes a place for one more task of the agent under max_count,
// as the memory store does: it drops the tasks past the retention that no
// host works on, then the least recently updated finished ones; it refuses
// when every place holds an unfinished task. An advisory lock of the agent
// makes hosts take places one at a time.
func (s *pgTaskStore) makeRoom(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "a2a_tasks/"+s.agent); err != nil {
		return err
	}
	if err := s.dropExpired(ctx, tx); err != nil {
		return err
	}
	var count int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM a2a_tasks WHERE agent_id = $1", s.agent).Scan(&count); err != nil {
		return err
	}
	if count < s.maxTasks {
		return nil
	}
	tag, err := tx.Exec(ctx, `DELETE FROM a2a_tasks WHERE agent_id = $1 AND task_id IN (SELECT task_id FROM a2a_tasks
		WHERE agent_id = $1 AND state = ANY($2) AND NOT `+running+` ORDER BY updated_at LIMIT $3)`,
		s.agent, terminalStates, count-s.maxTasks+1)
	if err != nil {
		return err
	}
	if count-int(tag.RowsAffected()) >= s.maxTasks {
		return storeFullError(s.maxTasks)
	}
	return nil
}

// dropExpired drops the agent's tasks not updated within the retention,
// but those a host works on.
func (s *pgTaskStore) dropExpired(ctx context.Context, db execer) error {
	_, err := db.Exec(ctx, `DELETE FROM a2a_tasks WHERE agent_id = $1 AND updated_at < now() - $2 * interval '1 microsecond' AND NOT `+running,
		s.agent, s.retention.Microseconds())
	return err
}
