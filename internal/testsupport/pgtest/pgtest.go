// Package pgtest runs private, throwaway PostgreSQL servers for tests:
// initdb into a temporary directory, postgres on a free loopback port with
// its socket in that directory, removed again at the end. It uses the
// server binaries of the machine (Debian's postgresql package); where they
// are missing a test is skipped with one line saying so, or fails under
// A2A_REQUIRE_POSTGRES=1, as CI sets it.
//
// PostgreSQL refuses to run as root, so as root the server runs as the
// postgres system user the Debian package creates, its directory handed to
// that user.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv names the variable that turns missing server binaries from a
// skip into a failure.
const RequireEnv = "A2A_REQUIRE_POSTGRES"

// superuser is the role initdb makes; it owns every database of the server.
const superuser = "a2atest"

// startLimit bounds initdb and the server's start.
const startLimit = time.Minute

// Options shape a server.
type Options struct {
	// Listen holds addresses to listen on besides 127.0.0.1, such as an
	// address pods of a cluster on this machine reach it at.
	Listen []string
	// Allow holds the networks (CIDRs) whose clients may log in with the
	// password besides loopback, such as a cluster's pod network.
	Allow []string
}

// Server is a running PostgreSQL server of a test.
type Server struct {
	// Port is the TCP port it listens on, on every address.
	Port int
	// Password is the superuser's password, which clients over TCP need.
	Password string
	dir      string
	cmd      *exec.Cmd
	exited   chan struct{}
	log      string
}

// Start starts a server for the test, stopped and removed when the test
// ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := start(opts)
	if err != nil {
		fail(t, err)
	}
	t.Cleanup(s.Stop)
	return s
}

var shared struct {
	sync.Mutex
	server *Server
	err    error
}

// Shared returns the test process's own server, started on first use and
// kept for the other tests of the process; StopShared stops it.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.server == nil && shared.err == nil {
		shared.server, shared.err = start(Options{})
	}
	if shared.err != nil {
		fail(t, shared.err)
	}
	return shared.server
}

// StopShared stops the server Shared started, if it did; a TestMain calls
// it once the tests have run. The server also goes when the test process
// does, however that ends.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.server != nil {
		shared.server.Stop()
		shared.server = nil
	}
}

// missingBinaries is the error of a machine without the server binaries.
type missingBinaries struct{ err error }

func (e missingBinaries) Error() string {
	return "the PostgreSQL server binaries (initdb, postgres) are not installed: install the Debian package postgresql (" + e.err.Error() + ")"
}

func fail(t testing.TB, err error) {
	t.Helper()
	var missing missingBinaries
	if errors.As(err, &missing) && os.Getenv(RequireEnv) != "1" {
		t.Skip(missing.Error())
	}
	t.Fatalf("start a PostgreSQL server for the test: %v", err)
}

// DSN is the connection string of database on the server, over TCP to
// host ("" for 127.0.0.1).
func (s *Server) DSN(host, database string) string {
	if host == "" {
		host = "127.0.0.1"
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(superuser, s.Password), Host: net.JoinHostPort(host, strconv.Itoa(s.Port)),
		Path: "/" + database, RawQuery: "sslmode=disable"}
	return u.String()
}

// NewDatabase creates an empty database for the test, dropped when it
// ends, and returns its connection string over loopback.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	return s.DSN("", s.CreateDatabase(t))
}

// CreateDatabase creates an empty database for the test, dropped when it
// ends, and returns its name, for DSN.
func (s *Server) CreateDatabase(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "test_" + hex.EncodeToString(b)
	if err := s.admin(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := s.admin(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return name
}

// admin runs sql on the server's postgres database.
func (s *Server) admin(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, startLimit)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN("", "postgres"))
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

// Freeze stops every process of the server (SIGSTOP), as a suspended or
// wedged database host would: connections stay open and nothing answers.
// The server goes on when the test ends, or at Thaw.
func (s *Server) Freeze(t testing.TB) {
	t.Helper()
	t.Cleanup(s.Thaw)
	if err := s.signalAll(syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the PostgreSQL server's processes: %v", err)
	}
}

// Thaw lets the processes Freeze stopped go on.
func (s *Server) Thaw() {
	_ = s.signalAll(syscall.SIGCONT)
}

// signalAll signals the postmaster, then each of its children: the
// backends serving the connections. A signal to the process group would
// miss them, as each child of the postmaster starts a session of its own.
func (s *Server) signalAll(sig syscall.Signal) error {
	postmaster := s.cmd.Process.Pid
	if err := syscall.Kill(postmaster, sig); err != nil {
		return err
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return err
	}
	for _, stat := range stats {
		raw, err := os.ReadFile(stat)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so the fields
		// are read after its closing parenthesis.
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(postmaster) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
			_ = syscall.Kill(pid, sig)
		}
	}
	return nil
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() {
	select {
	case <-s.exited:
	default:
		s.Thaw()                                 // a stopped process hears no signal but SIGKILL
		_ = s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown: sessions end, nothing is kept
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	_ = os.RemoveAll(s.dir)
}

func start(opts Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, missingBinaries{err}
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	// Not t.TempDir: its parent is private to this user, which the server
	// may not be.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, log: filepath.Join(dir, "server.log")}
	if err := s.initdb(bin, owner, opts); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// A port free a moment ago may be taken by the time the server binds
	// it; another is tried then.
	for attempt := 0; ; attempt++ {
		var exitedEarly bool
		if exitedEarly, err = s.serve(bin, owner, opts); !exitedEarly || attempt == 4 {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// binDir finds the server binaries: Debian's newest, else those on PATH.
func binDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, initdb := range found {
		dir := filepath.Dir(initdb)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(initdb)
	if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
		return "", err
	}
	return dir, nil
}

// majorOf is the major version in /usr/lib/postgresql/<major>/bin/initdb.
func majorOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// serverUser is who the server runs as: nil for this user, the postgres
// system user for root.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root, and there is no postgres user to run it as (the Debian package postgresql makes one): %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) initdb(bin string, owner *syscall.Credential, opts Options) error {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	s.Password = hex.EncodeToString(b)
	pwfile := filepath.Join(s.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return err
	}
	if owner != nil {
		if err := os.Chown(s.dir, int(owner.Uid), int(owner.Gid)); err != nil {
			return err
		}
		if err := os.Chown(pwfile, int(owner.Uid), int(owner.Gid)); err != nil {
			return err
		}
	}
	data := filepath.Join(s.dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	_ = os.Remove(pwfile)
	var hba strings.Builder
	for _, cidr := range opts.Allow {
		fmt.Fprintf(&hba, "host all all %s scram-sha-256\n", cidr)
	}
	f, err := os.OpenFile(filepath.Join(data, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(hba.String())
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// serve starts postgres on a free port and waits until it takes logins;
// exitedEarly says it exited instead, as when another took the port.
func (s *Server) serve(bin string, owner *syscall.Credential, opts Options) (exitedEarly bool, err error) {
	port, err := freePort()
	if err != nil {
		return false, err
	}
	logFile, err := os.Create(s.log)
	if err != nil {
		return false, err
	}
	defer func() { _ = logFile.Close() }()
	listen := strings.Join(append([]string{"127.0.0.1"}, opts.Listen...), ",")
	cmd := exec.CommandContext(context.Background(), filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"), "-k", s.dir, "-p", strconv.Itoa(port),
		"-c", "listen_addresses="+listen, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The server goes with the test process, however that ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start postgres: %w", err)
	}
	s.cmd, s.Port, s.exited = cmd, port, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(startLimit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.DSN("", "postgres"))
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			return false, nil
		}
		select {
		case <-s.exited:
			out, _ := os.ReadFile(s.log)
			return true, fmt.Errorf("postgres exited before it took logins:\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.cmd.Process.Kill()
			<-s.exited
			return false, fmt.Errorf("postgres took no logins within %s: %w", startLimit, err)
		}
	}
}

func freePort() (int, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
