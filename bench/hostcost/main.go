// Command hostcost measures what an agent costs when run by one agent host
// executable against another, side by side in one run, and prints each
// figure with their ratio: the time from exec until the card answers, the
// resident memory once idle, and the size of the base image the container
// adapter builds from each. bench/host.sh runs it on the host the adapters
// start and on the agent host package built alone.
//
// Usage: hostcost [-runs N] [-idle D] [-image=false] [-host-config FILE] HOST BASELINE
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

const agentTOML = "[agent]\nname = \"Echo Agent\"\n\n[handler]\ntype = \"echo\"\n"

// message is one A2A SendMessage, so that the idle host has served a task.
const message = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`

func main() {
	runs := flag.Int("runs", 20, "starts of each executable, alternating, for the start time")
	rssRuns := flag.Int("rss-runs", 3, "idle hosts of each executable measured for memory")
	idle := flag.Duration("idle", 12*time.Second, "how long a host idles before its memory is read (longer than its quiet period)")
	image := flag.Bool("image", true, "build the container adapter's base image from each (needs a container engine)")
	hostConfig := flag.String("host-config", "", "run HOST with the agent config in `file` (such as one with [telemetry]); BASELINE keeps the echo agent's")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: hostcost [-runs N] [-rss-runs N] [-idle D] [-image=false] [-host-config FILE] HOST BASELINE")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *hostConfig, *runs, *rssRuns, *idle, *image); err != nil {
		fmt.Fprintln(os.Stderr, "hostcost:", err)
		os.Exit(1)
	}
}

func run(host, baseline, hostConfig string, runs, rssRuns int, idle time.Duration, image bool) error {
	dir, err := os.MkdirTemp("", "hostcost-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	cfg := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(cfg, []byte(agentTOML), 0o600); err != nil {
		return err
	}
	names := [2]string{filepath.Base(host), filepath.Base(baseline)}
	exes := [2]string{host, baseline}
	cfgs := [2]string{cfg, cfg}
	if hostConfig != "" {
		cfgs[0] = hostConfig
	}

	var starts [2][]time.Duration
	for i := range runs {
		// Alternate which goes first, so neither always meets a warmer cache.
		for _, k := range []int{i % 2, 1 - i%2} {
			d, err := startToCard(exes[k], cfgs[k])
			if err != nil {
				return err
			}
			starts[k] = append(starts[k], d)
		}
	}
	ms := func(k int) float64 { return float64(median(starts[k])) / float64(time.Millisecond) }
	report(fmt.Sprintf("start until the card answers, median of %d", runs), names, ms(0), ms(1), "ms")

	var rss [2]float64
	for i := range rssRuns {
		kib, err := idleRSS(exes, [2]int{i % 2, 1 - i%2}, cfgs, idle)
		if err != nil {
			return err
		}
		rss[0] += kib[0] / float64(rssRuns)
		rss[1] += kib[1] / float64(rssRuns)
	}
	report(fmt.Sprintf("idle RSS, mean of %d", rssRuns), names, rss[0], rss[1], "KiB")

	var size [2]float64
	for k, exe := range exes {
		info, err := os.Stat(exe)
		if err != nil {
			return err
		}
		size[k] = float64(info.Size()) / 1e6
	}
	report("executable", names, size[0], size[1], "MB")
	if !image {
		return nil
	}
	for k, exe := range exes {
		if size[k], err = baseImageMB(exe, dir); err != nil {
			return err
		}
	}
	report("base image the container adapter builds", names, size[0], size[1], "MB")
	return nil
}

func report(what string, names [2]string, a, b float64, unit string) {
	fmt.Printf("%s: %s %.1f %s, %s %.1f %s, ratio %.2f\n", what, names[0], a, unit, names[1], b, unit, a/b)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// host is an agent host process serving the config on a port of its own.
type host struct {
	cmd  *exec.Cmd
	base string
}

func startHost(exe, cfg string) (*host, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(context.Background(), exe, "--config", cfg, "--port", strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &host{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port)}, nil
}

// waitCard polls the host's card every millisecond until it answers.
func (h *host) waitCard() error {
	c := &http.Client{Timeout: time.Second}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, h.base+card.WellKnownPath, nil)
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		res, err := c.Do(req)
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s: no card at %s after 10s", h.cmd.Path, h.base)
}

func (h *host) stop() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	_ = h.cmd.Wait()
}

func startToCard(exe, cfg string) (time.Duration, error) {
	start := time.Now()
	h, err := startHost(exe, cfg)
	if err != nil {
		return 0, err
	}
	defer h.stop()
	err = h.waitCard()
	return time.Since(start), err
}

// idleRSS runs a host of each executable at once, started in order, sends
// each one message, lets them idle, and reads their resident memory.
func idleRSS(exes [2]string, order [2]int, cfgs [2]string, idle time.Duration) ([2]float64, error) {
	var kib [2]float64
	var hosts [2]*host
	defer func() {
		for _, h := range hosts {
			if h != nil {
				h.stop()
			}
		}
	}()
	for _, k := range order {
		exe := exes[k]
		h, err := startHost(exe, cfgs[k])
		if err != nil {
			return kib, err
		}
		hosts[k] = h
		if err := h.waitCard(); err != nil {
			return kib, err
		}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, h.base+"/", strings.NewReader(message))
		if err != nil {
			return kib, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return kib, err
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return kib, fmt.Errorf("%s answered the message with %s", exe, res.Status)
		}
	}
	time.Sleep(idle)
	for k, h := range hosts {
		v, err := vmRSS(h.cmd.Process.Pid)
		if err != nil {
			return kib, err
		}
		kib[k] = v
	}
	return kib, nil
}

func vmRSS(pid int) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

// baseImageMB has the container adapter build its default base image from
// exe, reads its size and removes it again.
func baseImageMB(exe, dir string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	state, err := statedir.Open(filepath.Join(dir, "state-"+filepath.Base(exe)))
	if err != nil {
		return 0, err
	}
	// The executables answer `version` with "dev", as development builds do.
	rt, err := container.New(ctx, container.Options{Executable: exe, Version: "dev", StateDir: state})
	if err != nil {
		return 0, err
	}
	defer func() { _ = rt.Close() }()
	ref, err := rt.BaseImage(ctx)
	if err != nil {
		return 0, err
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return 0, err
	}
	defer func() { _ = cli.Close() }()
	img, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		return 0, err
	}
	_, _ = cli.ImageRemove(ctx, ref, client.ImageRemoveOptions{PruneChildren: true})
	return float64(img.Size) / 1e6, nil
}

func freePort() (int, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
