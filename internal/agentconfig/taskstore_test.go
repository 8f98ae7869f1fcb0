package agentconfig

import (
	"errors"
	"strings"
	"testing"
)

// TestTaskStore: [tasks] store takes a connection string whose password,
// if it has one, comes from a variable; a password written literally, or
// as a reference's default, is refused where it is written, and the
// message never quotes it.
func TestTaskStore(t *testing.T) {
	tests := []struct {
		store string
		want  string // "" accepts it
	}{
		{"${TASKS_STORE}", ""},
		{"postgres://tasks@db.example.com:5432/tasks?sslmode=require", ""},
		{"postgresql://tasks:${TASKS_DB_PASSWORD}@db.example.com/tasks", ""},
		{"postgres://tasks:${TASKS_DB_PASSWORD}@${TASKS_DB_HOST}/tasks", ""},
		{"host=db.example.com dbname=tasks user=tasks", ""},
		{"host=db.example.com password=${TASKS_DB_PASSWORD} user=tasks", ""},
		{"postgres://db.example.com/tasks?password=${TASKS_DB_PASSWORD}", ""},
		{"postgres://tasks:hunter2-7d1e@db.example.com/tasks", "password literally in the URL"},
		{"postgres://tasks:hunter2-7d1e@${TASKS_DB_HOST}/tasks", "password literally in the URL"},
		{"postgres://db.example.com/tasks?sslmode=require&password=hunter2-7d1e", "password literally in the URL"},
		{"host=db.example.com password='hunter2-7d1e' user=tasks", "password literally in the key=value settings"},
		{"host=db.example.com password = hunter2-7d1e", "password literally in the key=value settings"},
		{"${TASKS_STORE:-postgres://tasks:hunter2-7d1e@localhost/tasks}", "password literally in the URL"},
		{"postgres://tasks:${TASKS_DB_PASSWORD:-hunter2-7d1e}@localhost/tasks", "password literally in the URL"},
		// Spellings pgx reads as a password, which a reader of its own missed.
		{"postgres://tasks:s3cr#t-7d1e@db.example.com/tasks", "password literally in the URL"},
		{"postgres://tasks:s3cr?t-7d1e@db.example.com/tasks", "password literally in the URL"},
		{"postgres://db.example.com/tasks?pass%77ord=hunter2-7d1e", "password literally in the URL"},
		{"postgres://db.example.com/tasks?%70assword=hunter2-7d1e", "password literally in the URL"},
		{"postgres://tasks:hunter2%2D7d1e@db.example.com/tasks", "password literally in the URL"},
		{"host=db.example.com\\u000Bpassword=hunter2-7d1e", "password literally in the key=value settings"},
		{"host=db.example.com\\fpassword=hunter2-7d1e", "password literally in the key=value settings"},
		// Files named for the agent host's machine are not read here.
		{"postgres://db.example.com/tasks?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem&password=hunter2-7d1e", "password literally in the URL"},
		{"postgres://tasks:${TASKS_DB_PASSWORD}@db.example.com/tasks?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", ""},
		// A reference where a number goes.
		{"host=db.example.com port=${TASKS_DB_PORT} password=${TASKS_DB_PASSWORD}", ""},
		{"host=db.example.com port=${TASKS_DB_PORT} password=hunter2-7d1e", "password literally in the key=value settings"},
		{"postgres://tasks:x${TASKS_DB_PASSWORD}@db.example.com/tasks", "password literally in the URL"},
		{"host=db.example.com application_name=tasks search_path=a2a password=hunter2-7d1e", "password literally in the key=value settings"},
		{"host=db.example.com application_name=tasks user=tasks", ""},
		{"host='db.example.com", "the driver can read"},
		{"db.example.com:5432", "is not a PostgreSQL connection string"},
		{"mysql://tasks@db.example.com/tasks", "is not a PostgreSQL connection string"},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			config := "[agent]\nname = \"a\"\n\n[tasks]\nstore = \"" + tt.store + "\"\n"
			cfg, err := Parse([]byte(config))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if cfg.Tasks.Store != tt.store {
					t.Errorf("store = %q, want it as written", cfg.Tasks.Store)
				}
				return
			}
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Problems) != 1 {
				t.Fatalf("Parse() error = %v, want one problem", err)
			}
			p := cerr.Problems[0]
			if p.Key != "tasks.store" || p.Line != 5 || p.Column != 1 || !strings.Contains(p.Message, tt.want) {
				t.Errorf("problem %+v, want tasks.store at line 5 saying %q", p, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error quotes the password: %v", err)
			}
		})
	}
}
