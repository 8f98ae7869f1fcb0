package provider

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

func TestUnreachableCardWarning(t *testing.T) {
	withCard := func(url string) agentruntime.Agent {
		return agentruntime.Agent{ID: "a", Endpoint: "http://127.0.0.1:49152", Card: &card.Parsed{Card: &a2a.AgentCard{
			SupportedInterfaces: []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC}},
		}}}
	}
	w := unreachableCardWarning(withCard("http://0.0.0.0:8080"))
	if w == nil {
		t.Fatal("no warning for a card advertising the container's listen address")
	}
	if !strings.Contains(w.Detail(), "advertises http://0.0.0.0:8080") || !strings.Contains(w.Detail(), "exposes the agent at http://127.0.0.1:49152") {
		t.Errorf("warning %q does not name both URLs", w.Detail())
	}
	if w := unreachableCardWarning(withCard("http://127.0.0.1:49152/")); w != nil {
		t.Errorf("warning for a card that reaches the agent: %s", w.Detail())
	}
	if w := unreachableCardWarning(agentruntime.Agent{ID: "a"}); w != nil {
		t.Errorf("warning without a card: %s", w.Detail())
	}
}

func TestCardDeviationsWarning(t *testing.T) {
	parsed, err := card.Parse([]byte(`{"supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],"description":"","name":"n","skills":[],"version":"1"}`))
	if err != nil {
		t.Fatal(err)
	}
	w := cardDeviationsWarning("http://127.0.0.1:1/.well-known/agent-card.json", parsed)
	if w == nil {
		t.Fatal("no warning for a card without skills or description")
	}
	for _, want := range []string{"$.skills is empty", "$.description is empty", "http://127.0.0.1:1/.well-known/agent-card.json"} {
		if !strings.Contains(w.Detail(), want) {
			t.Errorf("warning %q does not say %q", w.Detail(), want)
		}
	}
	if w := cardDeviationsWarning("u", &card.Parsed{}); w != nil {
		t.Errorf("warning for a card without deviations: %s", w.Detail())
	}
}

func TestV03FieldsWarning(t *testing.T) {
	for _, tt := range []struct {
		config string
		warns  bool
	}{
		{"[agent]\nname = \"A\"\n", false},
		{"[agent]\nname = \"A\"\n[card]\nv03_fields = false\n", false},
		{"[agent]\nname = \"A\"\n[card]\nv03_fields = true\n", true},
	} {
		cfg, err := agentconfig.Parse([]byte(tt.config))
		if err != nil {
			t.Fatal(err)
		}
		diags := v03FieldsWarning(cfg)
		if warns := diags.WarningsCount() == 1; warns != tt.warns || len(diags) > 1 {
			t.Errorf("%q: warnings %v; want a warning: %v", tt.config, diags, tt.warns)
		}
		if tt.warns && !strings.Contains(diags[0].Detail(), "may refuse the whole card") {
			t.Errorf("the warning does not say what the fields cost: %q", diags[0].Detail())
		}
	}
}
