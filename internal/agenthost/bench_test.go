package agenthost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
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
		return []string{hostArg, "--config", cfgFile, "--port", strconv.Itoa(port)}
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

// BenchmarkBatch measures a full batch (maxBatchCalls SendMessage calls)
// through an in-process host, client included, and the batch the red-team
// issue flooded a host with: 8 MiB of 55,178 calls, which is refused
// whole. Read B/op and allocs/op: the refusal should cost little more
// than reading the body, and a full batch grow with its calls only.
func BenchmarkBatch(b *testing.B) {
	flood := floodBatch(55178)
	if len(flood) > maxRequestBytes {
		b.Fatalf("the flood batch is %d bytes, over the %d-byte body limit", len(flood), maxRequestBytes)
	}
	for _, bc := range []struct {
		name string
		body []byte
	}{
		{"full", floodBatch(maxBatchCalls)},
		{"flood of 8 MiB", flood},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := startInProcess(b, benchConfig(b), Options{})
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				req, err := http.NewRequestWithContext(b.Context(), http.MethodPost, h.Endpoint(), bytes.NewReader(bc.body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("batch answered %d", resp.StatusCode)
				}
			}
		})
	}
}

// floodBatch is a batch of calls SendMessage calls.
func floodBatch(calls int) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := range calls {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":"flood %d"}]}}}`, i, i, i)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

func benchConfig(b *testing.B) *agentconfig.Config {
	cfg, err := agentconfig.Parse([]byte(echoConfig))
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkReadCall measures what the host reads of a JSON-RPC call before
// the SDK does, for a SendMessage call as large as the body limit allows,
// against json.Valid of the same bytes, the one pass any reader of the call
// makes: read the ratio of the two, not either alone.
func BenchmarkReadCall(b *testing.B) {
	text := strings.Repeat("a", maxRequestBytes-1024)
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 7, "method": "SendMessage",
		"params": map[string]any{"message": map[string]any{
			"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}},
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		read func() bool
	}{
		{"baseline json.Valid", func() bool { return json.Valid(body) }},
		{"readCall and its questions", func() bool {
			c := readCall(body)
			return c.objectProblem() == "" && c.id() != nil && !c.isNotification() && c.paramsRefusal() == nil
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if !bc.read() {
					b.Fatal("the call read as invalid")
				}
			}
		})
	}
}
