package contracttest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// getAgent returns the agent as rt sees it now.
func getAgent(t *testing.T, rt agentruntime.Runtime, id string) agentruntime.Agent {
	t.Helper()
	a, err := rt.Get(ctx(t), id)
	if err != nil {
		t.Fatalf("Get %s: %v", id, err)
	}
	return a
}

// testRoll: a roll replaces every instance of a running agent with a
// fresh one, even for new write-only values alone, which the new ones
// read; it returns the agent healthy with its new config recorded. A roll
// of a stopped agent provisions it and leaves it stopped.
func testRoll(t *testing.T, h Harness) {
	rt := h.New(t)
	roller := rt.(agentruntime.Roller)
	spec := agentruntime.Spec{Config: writeOnlyConfig(h, "Contract Roll"), WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": "wo-before-roll"}}
	a := provisionSpec(t, rt, spec)
	startHealthy(t, rt, a.ID)
	for _, step := range []struct {
		what   string
		config []byte
		value  string
	}{
		{"new write-only values", spec.Config, "wo-after-roll"},
		{"a new config", append(spec.Config, "\n# rolled\n"...), "wo-after-roll"},
	} {
		before := getAgent(t, rt, a.ID)
		spec.Config, spec.WriteOnly = step.config, agentruntime.WriteOnlyValues{"WO_SKILL": step.value}
		rolled, err := roller.Roll(ctx(t), spec)
		if err != nil {
			t.Fatalf("Roll with %s: %v", step.what, err)
		}
		kept := slices.ContainsFunc(strings.Split(rolled.Instance, ","), func(i string) bool {
			return slices.Contains(strings.Split(before.Instance, ","), i)
		})
		if !rolled.Running || rolled.Health != agentruntime.HealthHealthy || rolled.Instance == "" || kept {
			t.Fatalf("Roll with %s = running %v, %s, instances %q; want healthy, none of %q left", step.what, rolled.Running, rolled.Health, rolled.Instance, before.Instance)
		}
		if got := getAgent(t, rt, a.ID); string(got.Config) != string(step.config) || got.ConfigSHA256 != agentconfig.Digest(step.config) {
			t.Errorf("after the roll with %s, Get reads config %q (digest %s), want the one rolled out", step.what, got.Config, got.ConfigSHA256)
		}
		if !h.NoAgentOutput {
			h.wantCardWith(t, rolled, step.value)
		}
	}
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	spec.Config = append(spec.Config, "# rolled while stopped\n"...)
	stopped, err := roller.Roll(ctx(t), spec)
	if err != nil {
		t.Fatalf("Roll of a stopped agent: %v", err)
	}
	if stopped.Running || stopped.Health != agentruntime.HealthStopped || stopped.ConfigSHA256 != agentconfig.Digest(spec.Config) {
		t.Errorf("Roll of a stopped agent = running %v, %s, digest %s; want it provisioned and still stopped", stopped.Running, stopped.Health, stopped.ConfigSHA256)
	}
}

// testRollFails: a roll whose new instances exit, or serve an invalid
// card, fails with a RolloutError carrying why, and leaves the agent as
// it was: the same instances serving, the previous config recorded.
// Rolled again with a spec that runs, it succeeds.
func testRollFails(t *testing.T, h Harness) {
	const empty = "A2A_CONTRACT_ROLL_EMPTY_TOKEN"
	t.Setenv(empty, "")
	type rollCase struct {
		name      string
		good, bad func(name string) agentruntime.Spec
		// want is in the error, or in the new instances' logs.
		want func(failure *agentruntime.RolloutError) bool
	}
	cases := []rollCase{{
		// An empty bearer token would turn authentication off, so the
		// agent host refuses it and exits.
		name: "instances exit",
		good: func(name string) agentruntime.Spec { return agentruntime.Spec{Config: h.Config(name)} },
		bad: func(name string) agentruntime.Spec {
			return agentruntime.Spec{Config: append(h.Config(name), "\n[auth]\nbearer_token = \"${"+empty+"}\"\n"...),
				Allowlist: &agentruntime.EnvAllowlist{Name: "contract", Variables: []string{empty}}}
		},
		want: func(failure *agentruntime.RolloutError) bool {
			return h.NoAgentOutput || strings.Contains(strings.Join(failure.Logs, "\n"), empty)
		},
	}}
	if h.Brought != nil {
		cases = append(cases, rollCase{
			name: "card invalid",
			good: func(name string) agentruntime.Spec {
				return agentruntime.Spec{Config: h.Brought(t, name, echoServe, broughtCard(name))}
			},
			bad: func(name string) agentruntime.Spec {
				return agentruntime.Spec{Config: h.Brought(t, name, echoServe, []byte(`{"name":"`+name+`","version":"1"}`))}
			},
			want: func(failure *agentruntime.RolloutError) bool {
				var invalid *card.ValidationError
				return errors.As(failure, &invalid) && strings.Contains(failure.Error(), "$.supportedInterfaces")
			},
		})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("Contract Roll Fails %d", i)
			rt := h.New(t)
			roller := rt.(agentruntime.Roller)
			a := provisionSpec(t, rt, c.good(name))
			startHealthy(t, rt, a.ID)
			before := getAgent(t, rt, a.ID)
			_, err := roller.Roll(ctx(t), c.bad(name))
			var failure *agentruntime.RolloutError
			if !errors.As(err, &failure) {
				t.Fatalf("Roll to instances that cannot serve = %v, want a RolloutError", err)
			}
			if !c.want(failure) {
				t.Fatalf("Roll to instances that cannot serve = %v (their logs %q), want it to say why", err, failure.Logs)
			}
			after := getAgent(t, rt, a.ID)
			if after.Instance != before.Instance || after.Health != agentruntime.HealthHealthy || string(after.Config) != string(before.Config) ||
				after.ConfigSHA256 != before.ConfigSHA256 || !slices.Equal(after.InjectedEnv, before.InjectedEnv) {
				t.Errorf("after the failed roll the agent reads %+v, want it as it was: %+v", after, before)
			}
			fixed := c.good(name)
			fixed.Config = append(fixed.Config, "\n# fixed\n"...)
			if rolled, err := roller.Roll(ctx(t), fixed); err != nil || rolled.Health != agentruntime.HealthHealthy {
				t.Fatalf("Roll again with a spec that runs = %s, %v; want healthy", rolled.Health, err)
			}
		})
	}
}
