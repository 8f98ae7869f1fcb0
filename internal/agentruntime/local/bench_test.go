//go:build linux

package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// BenchmarkStartToHealthy measures the time from asking for agents to
// their cards answering, through the runtime and, as the baseline, by
// executing the same agent host directly and polling its card at the
// same pace. The difference is what the runtime adds: locking, records,
// port checks. A second baseline runs the host in its own session, as the
// runtime must, to tell the cost of detaching (which on Linux with
// autogrouping moves the agent into a scheduling group of its own) from
// the runtime's own.
func BenchmarkStartToHealthy(b *testing.B) {
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("runtime/agents=%d", n), func(b *testing.B) { benchRuntime(b, n) })
		b.Run(fmt.Sprintf("baseline/agents=%d", n), func(b *testing.B) { benchBaseline(b, n, false) })
		b.Run(fmt.Sprintf("baseline-own-session/agents=%d", n), func(b *testing.B) { benchBaseline(b, n, true) })
	}
}

func benchRuntime(b *testing.B, n int) {
	rt, err := New(testOptions(b, statedirtest.Open(b, b.TempDir())))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ids := make([]string, n)
	for i := range ids {
		a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig(fmt.Sprintf("Bench %02d", i), "")})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = a.ID
	}
	b.ResetTimer()
	for b.Loop() {
		all(b, ids, func(id string) error {
			if err := rt.Start(ctx, id); err != nil {
				return err
			}
			_, err := agentruntime.WaitHealthy(ctx, rt, id)
			return err
		})
		b.StopTimer()
		all(b, ids, func(id string) error { return rt.Stop(ctx, id) })
		b.StartTimer()
	}
	b.StopTimer()
	all(b, ids, func(id string) error { return rt.Deprovision(ctx, id) })
}

func benchBaseline(b *testing.B, n int, ownSession bool) {
	exe, err := hostbuild.Path()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	agents := make([]string, n)
	ports := map[string]string{}
	for i := range agents {
		f := filepath.Join(dir, fmt.Sprintf("agent-%02d.toml", i))
		if err := os.WriteFile(f, agentConfig(fmt.Sprintf("Bench %02d", i), ""), 0o600); err != nil {
			b.Fatal(err)
		}
		agents[i] = f
		ports[f] = strconv.Itoa(freePort(b))
	}
	b.ResetTimer()
	for b.Loop() {
		var mu sync.Mutex
		var procs []*exec.Cmd
		all(b, agents, func(f string) error {
			cmd := exec.CommandContext(context.Background(), exe, "--config", f, "--port", ports[f])
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: ownSession}
			if err := cmd.Start(); err != nil {
				return err
			}
			mu.Lock()
			procs = append(procs, cmd)
			mu.Unlock()
			cardURL := "http://127.0.0.1:" + ports[f] + card.WellKnownPath
			for !agentruntime.ProbeCard(context.Background(), cardURL) {
				time.Sleep(pollInterval)
			}
			return nil
		})
		b.StopTimer()
		for _, cmd := range procs {
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
		}
		b.StartTimer()
	}
}

func freePort(b *testing.B) int {
	l, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	return port
}

// all runs op on every item at once and fails the benchmark on any error.
func all(b *testing.B, items []string, op func(string) error) {
	errs := make(chan error, len(items))
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Go(func() { errs <- op(it) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
