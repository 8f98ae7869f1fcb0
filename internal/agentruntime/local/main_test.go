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

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Roles the test binary plays when a test runs it as another process.
const (
	roleEnv = "A2A_LOCAL_TEST_ROLE"
	// roleStart provisions and starts the agents named in namesEnv over the
	// state dir in stateEnv, then exits: a provider process that ends
	// while its agents live on.
	roleStart = "start-agents"
	// roleSleep blocks until killed: a live process that is not an agent.
	roleSleep = "sleep"
	stateEnv  = "A2A_LOCAL_TEST_STATE"
	namesEnv  = "A2A_LOCAL_TEST_NAMES"
)

// TestMain lets this test binary serve as the agent host (the runtime runs
// `<executable> run --config ...`) and as the other processes tests need.
func TestMain(m *testing.M) {
	agenthost.RunIfSubcommand()
	switch os.Getenv(roleEnv) {
	case roleStart:
		if err := startAgents(os.Getenv(stateEnv), strings.Split(os.Getenv(namesEnv), ",")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case roleSleep:
		// Wait for a signal; any that ends the process is a signal sent to it.
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM)
		<-stop
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startAgents(stateDir string, names []string) error {
	rt, err := New(Options{StateDir: stateDir})
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
