package container

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Bounds on what the relay keeps of the docker CLI's complaints and how long
// a failed read waits for the CLI to finish saying why.
const (
	relayStderrLimit = 4 << 10
	relayExitWait    = 2 * time.Second
)

// dialThroughCLI reaches an engine the way the docker CLI does for ssh://
// hosts: `docker --host <host> system dial-stdio` relays the engine's API
// over the command's stdin and stdout, using the operator's own ssh setup
// (keys, agent, known_hosts). Each connection is one such command.
func dialThroughCLI(host string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		if _, err := exec.LookPath("docker"); err != nil {
			return nil, fmt.Errorf("engine host %s needs the docker CLI on PATH to connect over ssh: %w", host, err)
		}
		// The connection outlives the dial's context when the HTTP client
		// keeps it for reuse, so only the context's values are kept.
		cmd := exec.CommandContext(context.WithoutCancel(ctx), "docker", "--host", host, "system", "dial-stdio")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		// A pipe of our own rather than StdoutPipe, which Wait would close
		// under a pending Read: Wait runs as soon as the CLI exits, so that
		// its last words on stderr are complete when a Read fails.
		stdout, stdoutW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		c := &commandConn{cmd: cmd, stdin: stdin, stdout: stdout, exited: make(chan struct{})}
		cmd.Stdout, cmd.Stderr = stdoutW, &c.stderr
		// ssh, started by the CLI, holds stderr too; do not wait on it
		// long once the CLI is gone.
		cmd.WaitDelay = relayExitWait
		err = cmd.Start()
		_ = stdoutW.Close()
		if err != nil {
			_ = stdout.Close()
			return nil, fmt.Errorf("start docker CLI to reach engine %s: %w", host, err)
		}
		go func() {
			_ = cmd.Wait()
			close(c.exited)
		}()
		if err := ctx.Err(); err != nil {
			_ = c.Close()
			return nil, err
		}
		return c, nil
	}
}

// commandConn is a net.Conn over a child process's stdin and stdout.
type commandConn struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    *os.File
	stderr    boundedBuffer
	exited    chan struct{} // closed once the process is reaped
	closeOnce sync.Once
}

// Read returns the relayed bytes; when the relay ends with something said
// on stderr (ssh refusing the host key or the login, the remote lacking
// docker), that is the error, as the bare EOF would tell the operator nothing.
func (c *commandConn) Read(p []byte) (int, error) {
	n, err := c.stdout.Read(p)
	if err == nil {
		return n, nil
	}
	select {
	case <-c.exited:
	case <-time.After(relayExitWait):
	}
	if said := c.stderr.String(); said != "" {
		err = &relayError{said: said, err: err}
	}
	return n, err
}

// relayError is the docker CLI's account of why its relay ended.
type relayError struct {
	said string
	err  error
}

func (e *relayError) Error() string { return "docker CLI relay: " + e.said }
func (e *relayError) Unwrap() error { return e.err }

func (c *commandConn) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// Close ends the relay and reaps the child so no process is left behind.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		_ = c.cmd.Process.Kill()
		<-c.exited
		_ = c.stdout.Close()
	})
	return nil
}

func (c *commandConn) LocalAddr() net.Addr  { return stdioAddr{} }
func (c *commandConn) RemoteAddr() net.Addr { return stdioAddr{} }

// Deadlines are not supported by pipes; the HTTP client bounds requests by
// their contexts instead.
func (c *commandConn) SetDeadline(time.Time) error      { return nil }
func (c *commandConn) SetReadDeadline(time.Time) error  { return nil }
func (c *commandConn) SetWriteDeadline(time.Time) error { return nil }

type stdioAddr struct{}

func (stdioAddr) Network() string { return "stdio" }
func (stdioAddr) String() string  { return "docker system dial-stdio" }

// boundedBuffer keeps the first relayStderrLimit bytes written to it,
// safely for the writer and a concurrent reader.
type boundedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := relayStderrLimit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(b.buf.String())
}
