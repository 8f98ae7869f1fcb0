//go:build linux

package local

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// Roles the test binary plays when a test runs it as another process.
const (
	roleEnv = "A2A_LOCAL_TEST_ROLE"
	// roleStart provisions and starts the agents named in namesEnv over the
	// state dir in stateEnv, then exits: a provider process that ends
	// while its agents live on.
	roleStart = "start-agents"
	// roleBystander is a live process that is not an agent: it survives
	// every signal but SIGKILL, writing the name of each it receives to
	// the file named in signalLogEnv. It says "ready" on stdout once it
	// listens.
	roleBystander = "bystander"
	// roleStubborn is an agent that ignores SIGTERM and serves nothing,
	// so only SIGKILL stops it. The runtime runs the test binary as its
	// host, with the role in its environment, passed by an allowlist.
	roleStubborn = "stubborn-agent"
	// hostEnv gives roleStart the agent host the tests built.
	hostEnv      = "A2A_LOCAL_TEST_HOST"
	stateEnv     = "A2A_LOCAL_TEST_STATE"
	namesEnv     = "A2A_LOCAL_TEST_NAMES"
	signalLogEnv = "A2A_LOCAL_TEST_SIGNAL_LOG"
)

// TestMain lets this test binary serve as the other processes tests need.
// Agents run the agent host built for the tests (hostbuild), which goes
// once they have run.
func TestMain(m *testing.M) {
	// A test that runs this binary as the agent host runs it as the
	// agent's supervisor too, with the agent's environment and so its role.
	if len(os.Args) > 1 && os.Args[1] == launch.SupervisorArg {
		os.Exit(Supervise(os.Args[2:]))
	}
	if os.Getenv(roleEnv) == roleStubborn {
		signal.Ignore(syscall.SIGTERM)
		for {
			time.Sleep(time.Hour)
		}
	}
	switch os.Getenv(roleEnv) {
	case roleStart:
		if err := startAgents(os.Getenv(stateEnv), strings.Split(os.Getenv(namesEnv), ",")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case roleBystander:
		if err := recordSignals(os.Getenv(signalLogEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	hostbuild.Remove()
	os.Exit(code)
}

// testOptions are the options of a runtime over dir that starts the agent
// host built for the tests, checking it is of that build's release.
func testOptions(tb testing.TB, dir *statedir.Dir) Options {
	tb.Helper()
	host, err := hostbuild.Path()
	if err != nil {
		tb.Fatal(err)
	}
	return Options{StateDir: dir, Executable: host, Version: hostbuild.Release}
}

// recordSignals appends to path the name of every terminating signal the
// process receives, until it is killed or cannot write.
func recordSignals(path string) error {
	received := make(chan os.Signal, 8)
	signal.Notify(received, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	fmt.Println("ready")
	for sig := range received {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f, sig)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func startAgents(stateDir string, names []string) error {
	dir, err := statedir.Open(stateDir)
	if err != nil {
		return err
	}
	rt, err := New(Options{StateDir: dir, Executable: os.Getenv(hostEnv), Version: hostbuild.Release})
	if err != nil {
		return err
	}
	ctx := context.Background()
	errs := make(chan error, len(names))
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig(name, "")})
			if err == nil {
				err = rt.Start(ctx, a.ID)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// agentConfig is a minimal valid config for an agent named name, with
// extra TOML appended.
func agentConfig(name, extra string) []byte {
	return fmt.Appendf(nil, "[agent]\nname = %q\ndescription = \"test agent\"\n%s", name, extra)
}
