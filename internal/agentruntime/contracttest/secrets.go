package contracttest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// writeOnlyConfig is the harness's config for name with a skill whose name is
// the write-only variable WO_SKILL, so that the card shows the value the
// agent received.
func writeOnlyConfig(h Harness, name string) []byte {
	return append(h.Config(name), "\n[[skills]]\nid = \"secret\"\nname = \"${WO_SKILL}\"\ndescription = \"from a write-only value\"\n"...)
}

// testWriteOnly checks that write-only values reach the agent, stay with it
// across restarts the runtime makes on its own (a fresh runtime, a crash),
// change only when provisioned again, and show in nothing the runtime
// reports.
func testWriteOnly(t *testing.T, h Harness) {
	rt := h.New(t)
	first := "wo-first-" + t.Name()[len(t.Name())-7:]
	spec := agentruntime.Spec{Config: writeOnlyConfig(h, "Contract Secrets"), WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": first}, WriteOnlyVersion: "1"}
	a := provisionSpec(t, rt, spec)
	startHealthy(t, rt, a.ID)
	h.wantCardWith(t, a, first)

	fresh := h.New(t)
	if h.Crash != nil {
		h.Crash(t, a.ID)
	} else if err := fresh.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Recover(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// Started by a runtime that was never given the values.
	startHealthy(t, fresh, a.ID)
	h.wantCardWith(t, a, first)

	second := strings.Replace(first, "first", "second", 1)
	spec.WriteOnly, spec.WriteOnlyVersion = agentruntime.WriteOnlyValues{"WO_SKILL": second}, "2"
	if _, err := fresh.Provision(ctx(t), spec); err != nil {
		t.Fatalf("Provision with new values: %v", err)
	}
	if err := fresh.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	startHealthy(t, fresh, a.ID)
	h.wantCardWith(t, a, second)

	got, err := fresh.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := fresh.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	logs, err := fresh.Logs(ctx(t), a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.WriteOnlyVersion != "2" {
		t.Errorf("Get reads write-only version %q, want the 2 last provisioned: an imported agent must read back its env_wo_version", got.WriteOnlyVersion)
	}
	if !slices.Equal(got.WriteOnly, []string{"WO_SKILL"}) {
		t.Errorf("Get names write-only values %v, want [WO_SKILL]: an adopted agent's plan needs to know which it holds", got.WriteOnly)
	}
	reported := fmt.Sprintf("%+v %+v %s %v %#v", got, list, strings.Join(logs, "\n"), spec, spec)
	for _, v := range []string{first, second} {
		if strings.Contains(reported, v) {
			t.Errorf("a write-only value shows in what the runtime reports or logs:\n%s", reported)
		}
	}
	if len(logs) == 0 {
		t.Error("the agent's log is empty, so the search for values in it proves nothing")
	}
}

// wantCardWith fails the test unless the card of agent a holds value.
func (h Harness) wantCardWith(t *testing.T, a agentruntime.Agent, value string) {
	t.Helper()
	if body := h.card(t, a); !strings.Contains(string(body), value) {
		t.Fatalf("card of %s does not show %q:\n%s", a.ID, value, body)
	}
}

// card fetches the card of agent a as a client of the adapter's agents
// reaches it from the tests' machine.
func (h Harness) card(t *testing.T, a agentruntime.Agent) []byte {
	t.Helper()
	if h.FetchCard == nil {
		return getBody(t, a.CardURL)
	}
	body, err := h.FetchCard(ctx(t), a)
	if err != nil {
		t.Fatalf("fetch the card of %s: %v", a.ID, err)
	}
	return body
}

// WantCardWith fails the test unless the card at url holds value.
func WantCardWith(t *testing.T, url, value string) {
	t.Helper()
	if body := getBody(t, url); !strings.Contains(string(body), value) {
		t.Fatalf("card at %s does not show %q:\n%s", url, value, body)
	}
}

func getBody(t *testing.T, url string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// testIncompleteKeepsAgent provisions, over a running agent, a config that
// references an allowlisted variable with no value: the runtime refuses it,
// naming the variable, and leaves the agent running as it was.
func testIncompleteKeepsAgent(t *testing.T, h Harness) {
	const unset = "A2A_CONTRACT_NEVER_SET"
	t.Setenv(unset, "")
	if err := os.Unsetenv(unset); err != nil {
		t.Fatal(err)
	}
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Incomplete")
	startHealthy(t, rt, a.ID)
	before, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	incomplete := append(h.Config("Contract Incomplete"), "\n[[skills]]\nid = \"s\"\nname = \"${"+unset+"}\"\n"...)
	_, err = rt.Provision(ctx(t), agentruntime.Spec{Config: incomplete,
		Allowlist: &agentruntime.EnvAllowlist{Name: "contract", Variables: []string{unset}}})
	if !agentruntime.IsKind(err, agentruntime.KindUnsetEnv) || !strings.Contains(err.Error(), unset) {
		t.Fatalf("Provision of a config whose variable has no value = %v, want an unset-variable error naming %s", err, unset)
	}
	after, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !after.Running || after.Instance != before.Instance || after.ConfigSHA256 != before.ConfigSHA256 {
		t.Errorf("the refused provision touched the agent: before %+v, after %+v", before, after)
	}
}
