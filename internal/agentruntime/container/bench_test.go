package container

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// BenchmarkApplyToHealthy measures what `terraform apply` waits for: agents
// provisioned, started and answering their cards, n at once. In the same
// iteration the baseline does the same with `docker run` of the same image
// and equivalent flags, polling the card alike. ns/op is both together;
// adapter-ns/op, docker-run-ns/op and adapter/docker-run report each and
// their ratio.
func BenchmarkApplyToHealthy(b *testing.B) {
	needEngine(b)
	if _, err := exec.LookPath("docker"); err != nil {
		missing(b, "the docker CLI is not on PATH for the baseline: %v", err)
	}
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			scope := newScope(b)
			rt := newRuntime(b, testOptions(b, scope))
			ctx := context.Background()
			image, err := rt.BaseImage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var adapter, baseline time.Duration
			for i := range b.N {
				names := make([]string, n)
				for j := range names {
					names[j] = fmt.Sprintf("bench %d %d", i, j)
				}
				start := time.Now()
				parallel(b, names, func(name string) error { return applyThroughAdapter(ctx, rt, name) })
				adapter += time.Since(start)

				b.StopTimer()
				parallel(b, names, func(name string) error { return rt.Deprovision(ctx, slugOf(name)) })
				b.StartTimer()

				start = time.Now()
				parallel(b, names, func(name string) error { return applyThroughDockerRun(ctx, rt, image, name) })
				baseline += time.Since(start)

				b.StopTimer()
				removeScope(b, scope)
				b.StartTimer()
			}
			b.ReportMetric(float64(adapter.Nanoseconds())/float64(b.N), "adapter-ns/op")
			b.ReportMetric(float64(baseline.Nanoseconds())/float64(b.N), "docker-run-ns/op")
			b.ReportMetric(float64(adapter)/float64(baseline), "adapter/docker-run")
		})
	}
}

func parallel(b *testing.B, names []string, do func(name string) error) {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() { errs[i] = do(name) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

func slugOf(name string) string {
	p, _ := agentruntime.Prepare(agentruntime.Spec{Config: agentConfig(name)})
	return p.Config.ID()
}

func applyThroughAdapter(ctx context.Context, rt *Runtime, name string) error {
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig(name)})
	if err != nil {
		return err
	}
	if err := rt.Start(ctx, a.ID); err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = agentruntime.WaitHealthy(wait, rt, a.ID)
	return err
}

// applyThroughDockerRun is what an operator would type for one agent.
func applyThroughDockerRun(ctx context.Context, rt *Runtime, image, name string) error {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	endpoint := rt.opts.endpoint(port)
	h := rt.opts.Hardening
	owned := launch.Owned{Host: launch.ListenAll, Port: containerPort, AdvertisedURL: endpoint}
	args := []string{"run", "-d",
		"--name", rt.containerName(slugOf(name)) + "-baseline",
		"--label", labelScope + "=" + rt.opts.Scope,
		"-e", launch.ConfigEnvVar + "=" + string(agentConfig(name)),
	}
	for _, kv := range owned.Env() {
		args = append(args, "-e", kv)
	}
	args = append(args,
		"-p", "127.0.0.1:"+strconv.Itoa(port)+":8080",
		"--read-only", "--tmpfs", "/tmp:rw,noexec,nosuid,nodev,size=64m",
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges:true",
		"--user", h.User, "--pids-limit", strconv.FormatInt(h.PidsLimit, 10),
		"--restart", rt.opts.RestartPolicy, "--network", rt.opts.Network,
		"--stop-timeout", strconv.Itoa(rt.opts.graceSeconds()),
		image,
	)
	args = append(args, launch.Host{Owned: owned}.Args()...)
	if out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("docker run: %w: %s", err, out)
	}
	deadline := time.Now().Add(time.Minute)
	for delay := 10 * time.Millisecond; !agentruntime.ProbeCard(ctx, endpoint+"/.well-known/agent-card.json"); {
		if time.Now().After(deadline) {
			return fmt.Errorf("baseline agent %q did not answer its card", name)
		}
		time.Sleep(delay)
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
	return nil
}
