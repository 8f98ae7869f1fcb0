package pgtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// TestServer: a database of the shared server takes a login with the
// password over TCP, and is its own: a table made in one is not in
// another.
func TestServer(t *testing.T) {
	server := Shared(t)
	first, second := server.NewDatabase(t), server.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE TABLE mine (n int)"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close(ctx) }()
	var found bool
	if err := other.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE tablename = 'mine')").Scan(&found); err != nil || found {
		t.Errorf("the second database sees the first's table: %v, %v", found, err)
	}
	if Shared(t) != server {
		t.Errorf("Shared started a second server")
	}
}

// TestStopRemovesTheServer: a stopped server takes no logins and leaves
// no directory behind.
func TestStopRemovesTheServer(t *testing.T) {
	server := Start(t, Options{})
	dsn := server.DSN("", "postgres")
	server.Stop()
	if _, err := os.Stat(server.dir); !os.IsNotExist(err) {
		t.Errorf("the server's directory is still there: %v", err)
	}
	if conn, err := pgx.Connect(context.Background(), dsn); err == nil {
		_ = conn.Close(context.Background())
		t.Errorf("a stopped server took a login")
	}
}

// TestMissingBinariesSkip: without the server binaries a test is skipped
// with one line naming the package to install, when CI does not require
// PostgreSQL.
func TestMissingBinariesSkip(t *testing.T) {
	t.Setenv(RequireEnv, "")
	var skipped bool
	var message string
	t.Run("without binaries", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		err := missingBinaries{errors.New(`exec: "initdb": executable file not found in $PATH`)}
		message = err.Error()
		fail(t, err)
	})
	if !skipped || strings.Contains(message, "\n") || !strings.Contains(message, "install the Debian package postgresql") {
		t.Errorf("skipped %v with %q, want a skip of one line naming the package", skipped, message)
	}
}
