package container

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync"
	"time"
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
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start docker CLI to reach engine %s: %w", host, err)
		}
		if err := ctx.Err(); err != nil {
			c := &commandConn{cmd: cmd, stdin: stdin, stdout: stdout}
			_ = c.Close()
			return nil, err
		}
		return &commandConn{cmd: cmd, stdin: stdin, stdout: stdout}, nil
	}
}

// commandConn is a net.Conn over a child process's stdin and stdout.
type commandConn struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    io.ReadCloser
	closeOnce sync.Once
}

func (c *commandConn) Read(p []byte) (int, error)  { return c.stdout.Read(p) }
func (c *commandConn) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// Close ends the relay and reaps the child so no process is left behind.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
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
