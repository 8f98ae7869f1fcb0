package agenthost

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schemaLock is the advisory lock hosts take to make the tables, so that
// hosts starting at once do not race to create the same ones.
const schemaLock = int64(0x6132615f7461736b) // "a2a_task"

// schema is the store's tables, made on first use and left as they are
// when they exist. a2a_tasks holds one row per task: its JSON, the
// columns reads filter and sort by, its version, and the lease of the host
// working on it (runner, lease_until). A row without a task is a place kept
// for a task an execution is about to store. a2a_task_events holds the
// event each write of a task streams, for hosts that follow it; they go
// with the task. Ids compare byte by byte (COLLATE "C"), as the memory
// store orders them.
const schema = `
CREATE TABLE IF NOT EXISTS a2a_tasks (
	agent_id    text COLLATE "C" NOT NULL,
	task_id     text COLLATE "C" NOT NULL,
	scope       text NOT NULL,
	context_id  text NOT NULL DEFAULT '',
	state       text NOT NULL DEFAULT '',
	status_ns   bigint NOT NULL DEFAULT 0,
	version     bigint NOT NULL DEFAULT 0,
	task        json,
	updated_at  timestamptz NOT NULL DEFAULT now(),
	runner      text,
	lease_until timestamptz,
	PRIMARY KEY (agent_id, task_id)
);
CREATE INDEX IF NOT EXISTS a2a_tasks_listing ON a2a_tasks (agent_id, scope, status_ns DESC, task_id DESC);
CREATE INDEX IF NOT EXISTS a2a_tasks_age ON a2a_tasks (agent_id, updated_at);
CREATE TABLE IF NOT EXISTS a2a_task_events (
	agent_id text COLLATE "C" NOT NULL,
	task_id  text COLLATE "C" NOT NULL,
	version  bigint NOT NULL,
	event    json NOT NULL,
	PRIMARY KEY (agent_id, task_id, version),
	FOREIGN KEY (agent_id, task_id) REFERENCES a2a_tasks (agent_id, task_id) ON DELETE CASCADE
);
`

// makeSchema makes the tables that are missing, under the schema lock.
func makeSchema(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", schemaLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schema)
		return err
	})
}
