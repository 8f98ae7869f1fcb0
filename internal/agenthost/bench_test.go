package agenthost

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// baselineSubcommand turns the test binary into the baseline for the
// start-up benchmarks: the least a Go program can do to serve a card, a
// static JSON file over net/http. It lives in test code only.
const baselineSubcommand = "baseline-static-card"

func runBaselineIfRequested() {
	if len(os.Args) > 1 && os.Args[1] == baselineSubcommand {
		os.Exit(baselineMain(os.Args[2:]))
	}
}

func baselineMain(args []string) int {
	fs := flag.NewFlagSet(baselineSubcommand, flag.ContinueOnError)
	port := fs.Int("port", 0, "port")
	file := fs.String("file", "", "card file")
	if fs.Parse(args) != nil {
		return 2
	}
	card, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card)
	})
	srv := &http.Server{Addr: "127.0.0.1:" + strconv.Itoa(*port), Handler: mux, ReadHeaderTimeout: time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// BenchmarkHostStartToFirstCard measures exec of the host to its first
// served card, as the runtime sees it when it starts an agent, and reports
// the host's resident memory once idle.
func BenchmarkHostStartToFirstCard(b *testing.B) {
	dir := b.TempDir()
	cfgFile := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(cfgFile, []byte(echoConfig), 0o600); err != nil {
		b.Fatal(err)
	}
	benchStartToFirstCard(b, func(port int) []string {
		return []string{Subcommand, "--config", cfgFile, "--port", strconv.Itoa(port)}
	})
}

// BenchmarkBaselineStartToFirstCard is the same measurement for a minimal
// net/http program serving a static card file.
func BenchmarkBaselineStartToFirstCard(b *testing.B) {
	file := filepath.Join(b.TempDir(), "card.json")
	card := `{"name":"Echo Agent","description":"Repeats what it is told","version":"1.0.0"}`
	if err := os.WriteFile(file, []byte(card), 0o600); err != nil {
		b.Fatal(err)
	}
	benchStartToFirstCard(b, func(port int) []string {
		return []string{baselineSubcommand, "--file", file, "--port", strconv.Itoa(port)}
	})
}

func benchStartToFirstCard(b *testing.B, argsFor func(port int) []string) {
	client := &http.Client{Timeout: time.Second}
	var rssTotal int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		port := freePort(b)
		cardURL := "http://127.0.0.1:" + strconv.Itoa(port) + "/.well-known/agent-card.json"
		cmd := exec.CommandContext(b.Context(), os.Args[0], argsFor(port)...)
		b.StartTimer()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		pollCard(b, client, cardURL)
		b.StopTimer()
		rss, err := residentKiB(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		rssTotal += rss
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("after SIGTERM: %v", err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(rssTotal)/float64(b.N), "idle-RSS-KiB")
}

func pollCard(b *testing.B, client *http.Client, cardURL string) {
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		req, err := http.NewRequestWithContext(b.Context(), http.MethodGet, cardURL, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	b.Fatalf("no card at %s after %s", cardURL, waitLimit)
}

// residentKiB reads VmRSS of a process from /proc.
func residentKiB(pid int) (int64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}
