package provider

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestPlanRefusesTakenID plans agents against a runtime that records
// "Café Agent" as cafe-agent. An agent replaced onto that id under another
// name is refused, naming the id and both ways out: apply would delete it
// first. A new one only warns, the same way, since Terraform plans so
// before a destroy too; one of the same name is left to Create, as a
// tainted agent's replacement plans just so.
func TestPlanRefusesTakenID(t *testing.T) {
	rt := memory.New()
	if _, err := rt.Provision(t.Context(), agentruntime.Spec{Config: []byte(echoConfig("Café Agent", "recorded"))}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		config  string
		priorID string // empty: a new agent
		refused bool
		warned  bool
	}{
		{name: "another name, same slug", config: echoConfig("Cafe Agent", "new"), warned: true},
		{name: "another name, same explicit id", config: "[agent]\nname = \"Other\"\nid = \"cafe-agent\"\n", warned: true},
		{name: "an agent replaced onto a taken id", config: echoConfig("Cafe Agent", "renamed"), priorID: "old-agent", refused: true},
		{name: "the same name", config: echoConfig("Café Agent", "tainted, replaced")},
		{name: "a free id", config: echoConfig("Cafe Agent", "new") + "id = \"cafe-agent-2\"\n"},
		{name: "an existing agent keeping its id", config: echoConfig("Cafe Agent", "changed"), priorID: "cafe-agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &agentModel{
				Config: types.StringValue(tt.config), EnvAllowlist: types.StringNull(), Running: types.BoolValue(true),
				WaitForHealthy: types.BoolValue(true), EnvWOVersion: types.Int64Null(),
			}
			var prior *agentModel
			if tt.priorID != "" {
				p := *plan
				p.ID, p.Health, p.InjectedEnv = types.StringValue(tt.priorID), types.StringValue("healthy"), stringList(nil)
				prior = &p
			}
			_, diags := planAgent(t.Context(), rt, prior, plan, plannedAllowlist{known: true}, writeOnly{known: true})
			if diags.HasError() != tt.refused {
				t.Fatalf("refused = %v, want %v: %v", diags.HasError(), tt.refused, diags)
			}
			var taken diag.Diagnostics
			for _, d := range diags {
				if strings.HasPrefix(d.Summary(), "Agent id cafe-agent is taken") {
					taken = append(taken, d)
				}
			}
			if len(taken) > 0 != (tt.refused || tt.warned) {
				t.Fatalf("says the id is taken: %v, want %v: %v", len(taken) > 0, tt.refused || tt.warned, diags)
			}
			if len(taken) == 0 {
				return
			}
			detail := taken[0].Summary() + " " + taken[0].Detail()
			for _, want := range []string{`"cafe-agent"`, `"Café Agent"`, "[agent]", "terraform import a2a_agent.<resource name> cafe-agent"} {
				if !strings.Contains(detail, want) {
					t.Errorf("%q does not say %s", detail, want)
				}
			}
		})
	}
}

// TestCheckIDUnique plans agents, in order, through one process's registry
// of planned ids: a new agent whose id another new agent of another name
// was planned with is refused, naming both names and the id; the same
// name again (one resource planned twice, or declared twice, which only
// Create can tell) and agents keeping their id are not.
func TestCheckIDUnique(t *testing.T) {
	type planned struct {
		id, name string
		priorID  string // empty: a new agent
		refused  bool
	}
	tests := []struct {
		name  string
		plans []planned
	}{
		{name: "two names, one id", plans: []planned{{id: "twin", name: "Twin"}, {id: "twin", name: "twin", refused: true}}},
		{name: "the same name twice", plans: []planned{{id: "twin", name: "Twin"}, {id: "twin", name: "Twin"}}},
		{name: "the first keeps the id", plans: []planned{
			{id: "twin", name: "Twin"}, {id: "twin", name: "twin", refused: true}, {id: "twin", name: "Twin"}, {id: "twin", name: "TWIN", refused: true},
		}},
		{name: "two ids", plans: []planned{{id: "twin", name: "Twin"}, {id: "twin-2", name: "twin"}}},
		{name: "an existing agent keeping its id", plans: []planned{{id: "twin", name: "Twin"}, {id: "twin", name: "twin", priorID: "twin"}}},
		{name: "an agent replaced onto a planned id", plans: []planned{{id: "twin", name: "Twin"}, {id: "twin", name: "twin", priorID: "old", refused: true}}},
		{name: "an unknown id", plans: []planned{{id: "twin", name: "Twin"}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids plannedIDs
			for i, p := range tt.plans {
				plan := &agentModel{ID: types.StringUnknown(), Name: types.StringUnknown()}
				if p.id != "" {
					plan.ID, plan.Name = types.StringValue(p.id), types.StringValue(p.name)
				}
				var prior *agentModel
				if p.priorID != "" {
					prior = &agentModel{ID: types.StringValue(p.priorID)}
				}
				diags := checkIDUnique(&ids, prior, plan)
				if diags.HasError() != p.refused {
					t.Fatalf("plan %d (%s): refused = %v, want %v: %v", i, p.name, diags.HasError(), p.refused, diags)
				}
				if !p.refused {
					continue
				}
				text := diags.Errors()[0].Summary() + " " + diags.Errors()[0].Detail()
				for _, want := range []string{`"Twin"`, `"` + p.name + `"`, "id " + p.id, "[agent]"} {
					if !strings.Contains(text, want) {
						t.Errorf("%q does not say %s", text, want)
					}
				}
			}
		})
	}
}

// TestPlannedIDsConcurrent claims one id under two names from many
// goroutines at once, as Terraform plans resources: exactly one name wins,
// and every claim of the other is refused.
func TestPlannedIDsConcurrent(t *testing.T) {
	var ids plannedIDs
	var wg sync.WaitGroup
	refusals := make([]int, 2)
	names := []string{"Twin", "twin"}
	var mu sync.Mutex
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ids.claim("twin", names[i%2]) != "" {
				mu.Lock()
				refusals[i%2]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if oneNameRefused := (refusals[0] == 0 && refusals[1] == 10) || (refusals[0] == 10 && refusals[1] == 0); !oneNameRefused {
		t.Fatalf("refusals by name %v: %v, want all of one name's and none of the other's", names, refusals)
	}
}

func TestLostLettersWarning(t *testing.T) {
	tests := []struct {
		config string
		warns  bool
	}{
		{config: echoConfig("Agent 日本", "d"), warns: true},
		{config: echoConfig("Café Agent", "d")},
		{config: "[agent]\nname = \"Agent 日本\"\nid = \"agent-nihon\"\n"},
	}
	for _, tt := range tests {
		cfg, err := agentconfig.Parse([]byte(tt.config))
		if err != nil {
			t.Fatal(err)
		}
		diags := lostLettersWarning(cfg)
		if got := diags.WarningsCount() == 1; got != tt.warns {
			t.Errorf("%q: warns = %v, want %v", tt.config, got, tt.warns)
			continue
		}
		if tt.warns && !strings.Contains(diags.Warnings()[0].Detail(), `without "日本"`) {
			t.Errorf("warning %q does not name the letters left out", diags.Warnings()[0].Detail())
		}
	}
}
