package agenthost

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

func TestConfigAndUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.toml", echoConfig)
	unknownKey := write("unknown.toml", "[agent]\nname = \"x\"\n\n  colour = \"red\"\n")
	unsetVar := write("unset.toml", echoConfig+"\n[auth]\nbearer_token = \"${AGENTHOST_TEST_UNSET_TOKEN}\"\n")
	emptyDefaultToken := write("empty-default.toml", echoConfig+"\n[auth]\nbearer_token = \"${AGENTHOST_TEST_UNSET_TOKEN:-}\"\n")
	emptyToken := write("empty.toml", echoConfig+"\n[auth]\nbearer_token = \"${AGENTHOST_TEST_EMPTY_TOKEN}\"\n")
	llmNoModel := write("llm.toml", "[agent]\nname = \"x\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"http://127.0.0.1:1\"\n")
	badKey := write("badkey.toml", echoConfig+"\n[card]\nsigning_key = \"not a PEM key\"\n")
	var lc net.ListenConfig
	busy, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)

	cases := []struct {
		name     string
		env      []string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{"unknown key", nil, []string{"--config", unknownKey}, 2, []string{unknownKey, "line 4, column 3", `unknown key "agent.colour"`}},
		{"unset variable", nil, []string{"--config", unsetVar}, 2, []string{"AGENTHOST_TEST_UNSET_TOKEN"}},
		{"token defaults to empty", nil, []string{"--config", emptyDefaultToken}, 2, []string{"bearer_token", `"${AGENTHOST_TEST_UNSET_TOKEN:-}"`, "empty token", "set AGENTHOST_TEST_UNSET_TOKEN"}},
		{"token variable set empty", []string{"AGENTHOST_TEST_EMPTY_TOKEN="}, []string{"--config", emptyToken}, 2, []string{"bearer_token", "empty token", "set AGENTHOST_TEST_EMPTY_TOKEN"}},
		{"llm without model", nil, []string{"--config", llmNoModel}, 2, []string{"base_url and model"}},
		{"bad signing key", nil, []string{"--config", badKey}, 2, []string{"signing_key"}},
		{"no config", nil, nil, 2, []string{"exactly one of --config FILE or --config-env NAME"}},
		{"both configs", []string{"AGENTHOST_TEST_CFG=" + echoConfig}, []string{"--config", good, "--config-env", "AGENTHOST_TEST_CFG"}, 2, []string{"exactly one"}},
		{"missing file", nil, []string{"--config", filepath.Join(dir, "absent.toml")}, 2, []string{"absent.toml", "no such file"}},
		{"unset config variable", nil, []string{"--config-env", "AGENTHOST_TEST_NO_SUCH_CFG"}, 2, []string{`"AGENTHOST_TEST_NO_SUCH_CFG"`, "not set"}},
		{"unknown flag", nil, []string{"--config", good, "--colour"}, 2, []string{"colour"}},
		{"stray argument", nil, []string{"--config", good, "extra"}, 2, []string{`"extra"`}},
		{"port out of range", nil, []string{"--config", good, "--port", "70000"}, 2, []string{"--port 70000"}},
		{"bad advertised URL", nil, []string{"--config", good, "--advertised-url", "localhost:8080"}, 2, []string{`"localhost:8080"`}},
		{"port in use", nil, []string{"--config", good, "--port", busyPort}, 1, []string{"listen", busyPort}},
		{"provider of another release", nil, []string{"--config", good, "--provider-version", "0.9.0"}, 2,
			[]string{`release "test"`, `provider starting it of release "0.9.0"`, `a2a-agent-host of release "0.9.0"`}},
		{"version among flags", nil, []string{"--config", good, "version"}, 2, []string{`"version"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := execHost(t, tc.env, tc.args...)
			if code := p.wait(t); code != tc.wantCode {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tc.wantCode, p.stderr)
			}
			stderr := p.stderr.String()
			if !strings.HasPrefix(stderr, "agent host: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line starting %q:\n%s", "agent host: ", stderr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not mention %q", stderr, want)
				}
			}
		})
	}
}

// TestVersionPrintsRelease checks the answer a provider reads before it
// starts agents with the host: the release alone, on stdout.
func TestVersionPrintsRelease(t *testing.T) {
	p := execHost(t, nil, launch.VersionArg)
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d, want 0; stderr: %s", code, p.stderr)
	}
	if got := p.stdout.String(); got != testRelease+"\n" || p.stderr.String() != "" {
		t.Errorf("stdout %q, stderr %q; want %q and nothing", got, p.stderr, testRelease+"\n")
	}
}

func TestHelpExitsZero(t *testing.T) {
	p := execHost(t, nil, "--help")
	if code := p.wait(t); code != 0 {
		t.Fatalf("--help: exit code %d, want 0", code)
	}
	for _, flag := range []string{"-config", "-config-env", "-host", "-port", "-advertised-url", "-provider-version", launch.VersionArg} {
		if !strings.Contains(p.stderr.String(), flag) {
			t.Errorf("--help does not describe %s:\n%s", flag, p.stderr)
		}
	}
}

// TestVariablesExpandFromHostEnvironment checks ${VAR} and ${VAR:-default}
// are expanded from the host's own environment and reach the card.
func TestVariablesExpandFromHostEnvironment(t *testing.T) {
	toml := `
[agent]
name = "Greeter"
description = "${GREETING}, operator"
version = "${AGENTHOST_TEST_UNSET_VERSION:-2.0.0}"
`
	p := startHostProcess(t, toml, []string{"GREETING=Good morning"})
	var c a2a.AgentCard
	if err := json.Unmarshal(getCard(t, p.cardURL), &c); err != nil {
		t.Fatal(err)
	}
	if c.Description != "Good morning, operator" || c.Version != "2.0.0" {
		t.Errorf("card description %q version %q, want %q and %q", c.Description, c.Version, "Good morning, operator", "2.0.0")
	}
}

// TestConfigFromEnvironmentWithOverrides starts the host the way the
// container and kubernetes adapters do (launch.Host): config in an
// environment variable, listen address and advertised URL from flags, and
// the variables every agent is given, which the config uses, in its
// environment. Their values show in the card, and in the log unhidden. The
// provider is of the host's release, which the host accepts.
func TestConfigFromEnvironmentWithOverrides(t *testing.T) {
	port := freePort(t)
	owned := launch.Owned{Host: "127.0.0.1", Port: port, AdvertisedURL: "http://127.0.0.1:" + strconv.Itoa(port) + "/"}
	toml := echoConfig + "\n[server]\nhost = \"192.0.2.1\"\nhttp_port = 1\nadvertised_url = \"http://192.0.2.1:1\"\n" +
		"[[skills]]\nid = \"owned\"\nname = \"owned\"\ndescription = \"${HOST} ${PORT} ${A2A_ADVERTISED_URL}\"\n"
	p := execHost(t, append(owned.Env(), launch.ConfigEnvVar+"="+toml), launch.Host{Owned: owned, ProviderVersion: testRelease}.Args()...)
	p.ready(t, toml)
	listen := net.JoinHostPort(owned.Host, strconv.Itoa(port))
	if line := firstLineWith(p.stdout.String(), "agent host started"); logField(line, "listen") != listen || logField(line, "agent") != "echo-agent" {
		t.Errorf("startup line %q, want agent echo-agent listening on %s", line, listen)
	}
	var c a2a.AgentCard
	if err := json.Unmarshal(getCard(t, "http://"+listen+"/.well-known/agent-card.json"), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.SupportedInterfaces) == 0 || c.SupportedInterfaces[0].URL != owned.AdvertisedURL {
		t.Errorf("card interfaces %+v, want the advertised URL %s", c.SupportedInterfaces, owned.AdvertisedURL)
	}
	want := owned.Host + " " + strconv.Itoa(port) + " " + owned.AdvertisedURL
	if i := slices.IndexFunc(c.Skills, func(s a2a.AgentSkill) bool { return s.ID == "owned" }); i < 0 || c.Skills[i].Description != want {
		t.Errorf("card skills %+v, want skill owned described as %q", c.Skills, want)
	}
}

func TestSignalsStopTheHostCleanly(t *testing.T) {
	cases := []struct {
		name     string
		signal   syscall.Signal
		inFlight bool
	}{
		{"SIGTERM idle", syscall.SIGTERM, false},
		{"SIGINT idle", syscall.SIGINT, false},
		{"SIGTERM with a call in flight", syscall.SIGTERM, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			toml := echoConfig
			var model *fakeModel
			if tc.inFlight {
				hold := make(chan struct{})
				t.Cleanup(func() { close(hold) })
				model = newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-hold:
					case <-r.Context().Done():
					}
				})
				toml = llmConfig(model.URL, "")
			}
			p := startHostProcess(t, toml, nil)
			if tc.inFlight {
				body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + mustJSON(t, sendParams("slow")) + `}`
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.endpoint, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set(a2a.SvcParamVersion, string(a2a.Version))
				go func() {
					// Answered only when the host closes the connection at shutdown.
					if resp, err := http.DefaultClient.Do(req); err == nil {
						_ = resp.Body.Close()
					}
				}()
				waitFor(t, func() bool { return len(model.recorded()) == 1 })
			} else {
				if status := postRPC(t, p.endpoint, "SendMessage", sendParams("before stop"), nil).status; status != http.StatusOK {
					t.Fatalf("SendMessage status %d", status)
				}
			}
			if err := p.cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 0 {
				t.Fatalf("exit code %d after %s, want 0; stderr: %s", code, tc.signal, p.stderr)
			}
			out := p.stdout.String()
			if !strings.Contains(out, "agent host stopped") {
				t.Errorf("stdout lacks the stop line:\n%s", out)
			}
			if !tc.inFlight && !strings.Contains(out, `msg=request method=POST path=/ rpc=SendMessage status=200`) {
				t.Errorf("stdout lacks the request line:\n%s", out)
			}
			if strings.Contains(out, "before stop") {
				t.Errorf("stdout carries a message body:\n%s", out)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met after %s", waitLimit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestWriteOnlyValuesComeFirst starts the host the way the local adapter does
// (launch.Host), passing write-only values in a file, which wins over the
// environment, and whose values never reach the host's log.
func TestWriteOnlyValuesComeFirst(t *testing.T) {
	port := freePort(t)
	writeOnlyFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(writeOnlyFile, []byte(`{"GREETING": "from-the-file-7f3a"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	toml := "[agent]\nname = \"Greeter\"\ndescription = \"${GREETING}, ${PLACE}\"\n"
	cardURL := "http://127.0.0.1:" + strconv.Itoa(port) + "/.well-known/agent-card.json"
	host := launch.Host{ConfigFile: writeConfig(t, toml), WriteOnlyFile: writeOnlyFile,
		Owned: launch.Owned{Host: "127.0.0.1", Port: port, AdvertisedURL: "http://127.0.0.1:" + strconv.Itoa(port)}}
	p := execHost(t, []string{"GREETING=from the environment", "PLACE=here"}, host.Args()...)
	p.ready(t, toml)
	if p.cardURL != cardURL {
		t.Errorf("the host serves its card at %s, want %s", p.cardURL, cardURL)
	}
	var c a2a.AgentCard
	if err := json.Unmarshal(getCard(t, cardURL), &c); err != nil {
		t.Fatal(err)
	}
	if c.Description != "from-the-file-7f3a, here" {
		t.Errorf("card description %q, want the file's value and the environment's", c.Description)
	}
	if strings.Contains(p.stdout.String()+p.stderr.String(), "7f3a") {
		t.Errorf("the host logged a write-only value:\n%s", p.stdout.String())
	}
}
