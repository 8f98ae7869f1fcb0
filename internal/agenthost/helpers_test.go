package agenthost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/cardschema"
)

// waitLimit is a generous bound for things that take milliseconds, so a
// broken host fails a test instead of hanging it.
const waitLimit = 30 * time.Second

const echoConfig = `
[agent]
name = "Echo Agent"
description = "Repeats what it is told"
version = "1.0.0"

[handler]
type = "echo"
`

func parseConfig(t *testing.T, toml string) *agentconfig.Config {
	t.Helper()
	cfg, err := agentconfig.Parse([]byte(toml))
	if err != nil {
		t.Fatalf("parse config: %v", err)
	}
	if err := cfg.Expand(os.LookupEnv); err != nil {
		t.Fatalf("expand config: %v", err)
	}
	return cfg
}

// syncBuffer collects log output written by the host's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startInProcess starts a host in this process with opts, shuts it down
// when the test ends, and holds the card it serves to the A2A schemas
// (checkServedCard). Every host the tests start in this process starts
// here; a test that needs the host gone before it ends starts it in a
// subtest of its own.
func startInProcess(t testing.TB, cfg *agentconfig.Config, opts Options) *Host {
	t.Helper()
	h, err := Start(t.Context(), cfg, opts)
	if err != nil {
		t.Fatalf("start host: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	checkServedCard(t, h.Endpoint(), h.CardURL(), cfg.Card.V03Fields)
	return h
}

// checkServedCard holds the card a host serves, at both well-known paths,
// to the A2A schemas: a card strictly valid 1.0 by default, and one that
// 0.3 clients read too when the config asks for the 0.3 fields (v03).
func checkServedCard(t testing.TB, endpoint, cardURL string, v03 bool) {
	t.Helper()
	// Its own connections, closed after each request, so that the check
	// leaves nothing open for tests that count the host's connections.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: waitLimit}
	for _, cardURL := range []string{cardURL, card.CardURLAt(endpoint, card.LegacyWellKnownPath)} {
		req, err := http.NewRequestWithContext(ctxFor(t), http.MethodGet, cardURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", cardURL, err)
		}
		served, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d, %v: %s", cardURL, resp.StatusCode, err, served)
		}
		if v03 {
			cardschema.Validate(t, cardschema.Load(t).V03, served)
		} else {
			cardschema.ValidateStrict10(t, served)
		}
		if _, err := card.Parse(served); err != nil {
			t.Errorf("the card at %s does not parse: %v", cardURL, err)
		}
	}
}

// hostProcess is the test binary running as the agent host.
type hostProcess struct {
	cmd      *exec.Cmd
	endpoint string
	cardURL  string
	stdout   *syncBuffer
	stderr   *syncBuffer
	exited   chan struct{}
	exitErr  error
}

// execHost starts the test binary as the agent host with args and env added to this
// process's environment. It does not wait for the host to be ready.
func execHost(t *testing.T, env []string, args ...string) *hostProcess {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], append([]string{hostArg}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	p := &hostProcess{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start host process: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			_, _ = p.stdout.Write([]byte(sc.Text() + "\n"))
		}
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// startHostProcess writes toml to a file and starts the host on it (ready).
func startHostProcess(t *testing.T, toml string, env []string) *hostProcess {
	t.Helper()
	p := execHost(t, env, "--config", writeConfig(t, toml))
	p.ready(t, toml)
	return p
}

func writeConfig(t *testing.T, toml string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "agent.toml")
	if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// ready waits for the startup line of the host started on the config
// toml, and holds the card it serves to the A2A schemas (checkServedCard),
// as startInProcess does for hosts in this process.
func (p *hostProcess) ready(t *testing.T, toml string) {
	t.Helper()
	cfg, err := agentconfig.Parse([]byte(toml))
	if err != nil {
		t.Fatalf("parse the config of the host process: %v", err)
	}
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if line := firstLineWith(p.stdout.String(), `msg="agent host started"`); line != "" {
			p.endpoint, p.cardURL = logField(line, "endpoint"), logField(line, "card")
			checkServedCard(t, p.endpoint, p.cardURL, cfg.Card.V03Fields)
			return
		}
		select {
		case <-p.exited:
			t.Fatalf("host exited before it was ready: %v; stderr: %s", p.exitErr, p.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("host not ready after %s; stdout: %s stderr: %s", waitLimit, p.stdout, p.stderr)
}

// wait returns the exit code once the process ends.
func (p *hostProcess) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(waitLimit):
		t.Fatalf("host still running after %s; stderr: %s", waitLimit, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

func firstLineWith(text, substr string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, substr) {
			return line
		}
	}
	return ""
}

// logField returns the value of key=value in a log line.
func logField(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// freePort returns a loopback port that was free a moment ago, for tests
// that must name a port before the host starts.
func freePort(t testing.TB) int {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// newClient resolves the card at base with the SDK's resolver and builds
// an SDK client from it. A nil parser is the SDK's own.
func newClient(t *testing.T, base string, parser agentcard.Parser) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	ctx := ctxFor(t)
	resolver := agentcard.NewResolver(nil)
	resolver.CardParser = parser
	card, err := resolver.Resolve(ctx, base)
	if err != nil {
		t.Fatalf("resolve card at %s: %v", base, err)
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	return client, card
}

func userText(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

func messageText(m *a2a.Message) string { return partsText(m.Parts) }

func partsText(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// resultText is the text an agent answered with: a message's, or that of
// a task's artifacts.
func resultText(res a2a.SendMessageResult) string {
	switch r := res.(type) {
	case *a2a.Message:
		return messageText(r)
	case *a2a.Task:
		var b strings.Builder
		for _, a := range r.Artifacts {
			b.WriteString(partsText(a.Parts))
		}
		return b.String()
	}
	return ""
}

// rpcResponse is a JSON-RPC response as it travels, for tests that check
// the wire rather than the SDK's reading of it.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Data    []map[string]any `json:"data"`
	} `json:"error"`
}

// httpResult is an HTTP response with its body read.
type httpResult struct {
	status int
	header http.Header
	body   []byte
}

// postRPC sends one JSON-RPC call with optional headers; it asks for
// protocol 1.0 unless header names a version.
func postRPC(t *testing.T, endpoint, method string, params any, header http.Header) httpResult {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/json")
	if _, named := header[http.CanonicalHeaderKey(a2a.SvcParamVersion)]; !named {
		header.Set(a2a.SvcParamVersion, string(a2a.Version))
	}
	return do(t, http.MethodPost, endpoint, header, body)
}

func httpGet(t *testing.T, url string) httpResult {
	t.Helper()
	return do(t, http.MethodGet, url, nil, nil)
}

func do(t *testing.T, method, url string, header http.Header, body []byte) httpResult {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxFor(t), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResult{status: resp.StatusCode, header: resp.Header, body: raw}
}

func sendParams(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": "m-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		"role":      "ROLE_USER",
		"parts":     []map[string]any{{"text": text}},
	}}
}
