package container

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestEngineOverSSH reaches the engine as a remote one over ssh://: a
// throwaway sshd on loopback stands in for the engine's machine, and the
// docker CLI relays through it with an ssh setup of the test's own.
func TestEngineOverSSH(t *testing.T) {
	needEngine(t)
	if _, err := exec.LookPath("docker"); err != nil {
		missing(t, "the docker CLI is not on PATH (ssh:// hosts need it): %v", err)
	}
	remote := startSSHD(t)
	host := remote.url()

	t.Run("contract", func(t *testing.T) {
		opts := testOptions(t, newScope(t))
		opts.Host = host
		runContract(t, opts)
	})

	// A refusal on either side must reach the operator with ssh's reason.
	refused := []struct {
		name, host, mention string
	}{
		{"unknown user", "ssh://a2a-no-such-user@" + remote.addr, "Permission denied"},
		{"host key not known", "ssh://" + remote.user + "@localhost:" + strconv.Itoa(remote.port), "Host key verification failed"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := New(testContext(t), Options{Host: tt.host, Version: "test", StateDir: statedirtest.Open(t, t.TempDir())})
			if err == nil {
				_ = rt.Close()
				t.Fatalf("New over %s succeeded, want it refused", tt.host)
			}
			if !agentruntime.IsKind(err, agentruntime.KindBackend) || !strings.Contains(err.Error(), tt.host) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New over %s = %v, want a backend error naming the host and %q", tt.host, err, tt.mention)
			}
		})
	}
}

// sshRemote is a running sshd and the account the tests log in as.
type sshRemote struct {
	user string
	port int
	addr string // 127.0.0.1:port
}

func (r sshRemote) url() string { return "ssh://" + r.user + "@" + r.addr }

// startSSHD runs sshd on a free loopback port with a configuration, host
// key and authorised key of its own, and points the ssh client that the
// docker CLI runs at them: ssh reads ~/.ssh from the password database, not
// from HOME, so a wrapper first on PATH passes its own config file instead.
// The sshd session runs the docker CLI against the engine the tests use.
func startSSHD(t *testing.T) sshRemote {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if sshd, err = exec.LookPath("/usr/sbin/sshd"); err != nil {
			missing(t, "sshd is not installed (Debian package openssh-server): %v", err)
		}
	}
	realSSH, err := exec.LookPath("ssh")
	if err != nil {
		missing(t, "the ssh client is not installed (Debian package openssh-client): %v", err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if me.Uid == "0" {
		// sshd running as root insists on its privilege separation
		// directory, which the service manager normally creates.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("create sshd's privilege separation directory: %v", err)
		}
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, key := range []string{"host_key", "user_key"} {
		if out, err := exec.CommandContext(testContext(t), "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", path(key)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %s: %v: %s", key, err, out)
		}
	}
	userPub, err := os.ReadFile(path("user_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(path("host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	remote := sshRemote{user: me.Username, port: port, addr: "127.0.0.1:" + strconv.Itoa(port)}
	files := map[string]string{
		"authorized_keys": string(userPub),
		"known_hosts":     fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub),
		// A non-root sshd can only log its own user in, which is the one
		// the tests use; as root, keys are the only way in.
		"sshd_config": strings.Join([]string{
			"ListenAddress " + remote.addr,
			"HostKey " + path("host_key"),
			"PidFile none",
			"AuthorizedKeysFile " + path("authorized_keys"),
			"PermitRootLogin prohibit-password",
			"AuthenticationMethods publickey",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"UsePAM no",
			// The temporary directory's parents are world-writable.
			"StrictModes no",
			"SetEnv DOCKER_HOST=" + testEngineHost(),
			"",
		}, "\n"),
		"ssh_config": strings.Join([]string{
			"Host *",
			"  IdentityFile " + path("user_key"),
			"  IdentitiesOnly yes",
			"  UserKnownHostsFile " + path("known_hosts"),
			"  GlobalKnownHostsFile /dev/null",
			"  StrictHostKeyChecking yes",
			"  BatchMode yes",
			"",
		}, "\n"),
	}
	for name, content := range files {
		if err := os.WriteFile(path(name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bin := path("bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s -F %s \"$@\"\n", strconv.Quote(realSSH), strconv.Quote(path("ssh_config")))
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	log, err := os.Create(path("sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The test's own context would end sshd before the cleanups of the
	// runtimes that use it.
	life, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, sshd, "-D", "-e", "-f", path("sshd_config"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		stop()
		t.Fatalf("start sshd: %v", err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Connections still closing would outlive a killed sshd; let it
		// see them off first.
		awaitNoChildren(cmd.Process.Pid)
		stop()
		<-exited
		_ = log.Close()
		if t.Failed() {
			if data, err := os.ReadFile(path("sshd.log")); err == nil {
				t.Logf("sshd log:\n%s", data)
			}
		}
	})
	waitListening(t, remote.addr, exited, func() error { return waitErr })
	return remote
}

// freePort is a loopback port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(testContext(t), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening returns once addr greets with an SSH banner, and fails the
// test if the server exits first.
func waitListening(t *testing.T, addr string, exited <-chan struct{}, exitErr func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(testContext(t), 10*time.Second)
	defer cancel()
	for {
		var d net.Dialer
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			banner, _ := bufio.NewReader(c).ReadString('\n')
			_ = c.Close()
			if strings.HasPrefix(banner, "SSH-") {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("sshd exited before listening on %s: %v", addr, exitErr())
		case <-ctx.Done():
			t.Fatalf("sshd does not answer on %s: %v", addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// awaitNoChildren waits a while for the process pid to have no children,
// where the kernel lists them.
func awaitNoChildren(pid int) {
	list := fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		children, err := os.ReadFile(list)
		if err != nil || len(strings.TrimSpace(string(children))) == 0 {
			return
		}
	}
}
