package provider

import (
	"cmp"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestAgentReplicasRefused: an adapter that runs one instance of an agent
// refuses more at plan time, naming the adapter that runs them, and no
// value below one passes.
func TestAgentReplicasRefused(t *testing.T) {
	tests := []struct {
		replicas string
		want     string
	}{
		{"2", `(?s)Replicas not supported by this adapter.*local runtime runs one instance.*asks for 2.*kubernetes adapter`},
		{"0", `(?s)replicas.*must be at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.replicas, func(t *testing.T) {
			acc := newAccTest(t)
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      acc.agent("[agent]\nname = \"Replicas Refused\"", "  replicas = "+tt.replicas),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}

// replicaRuntime is the in-memory adapter running replicas as a cluster
// does: as many as the spec asks for, else its default.
type replicaRuntime struct {
	*memory.Runtime
	mu              sync.Mutex
	defaultReplicas int
	replicas        map[string]int
}

func newReplicaRuntime(defaultReplicas int) *replicaRuntime {
	return &replicaRuntime{Runtime: memory.New(), defaultReplicas: defaultReplicas, replicas: map[string]int{}}
}

func (r *replicaRuntime) DefaultReplicas() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.defaultReplicas
}

func (r *replicaRuntime) setDefault(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaultReplicas = n
}

func (r *replicaRuntime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	a, err := r.Runtime.Provision(ctx, spec)
	if err != nil {
		return a, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replicas[a.ID] = cmp.Or(spec.Replicas, r.defaultReplicas)
	a.Replicas = r.replicas[a.ID]
	return a, nil
}

func (r *replicaRuntime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	a, err := r.Runtime.Get(ctx, id)
	r.mu.Lock()
	defer r.mu.Unlock()
	a.Replicas = r.replicas[id]
	return a, err
}

// TestAgentReplicasPlan: an agent that sets no replicas plans the
// runtime's default, and a new default reaches it; a change of replicas
// scales the running agent in place, never restarting it (its instance
// stays). After every apply the framework proves the next plan empty, and
// the agent imports with an empty plan.
func TestAgentReplicasPlan(t *testing.T) {
	rt := newReplicaRuntime(2)
	toml := "[agent]\nname = \"Replicas Plan\""
	sameInstance := statecheck.CompareValue(compare.ValuesSame())
	scales := func(replicas int64) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(agentAddr, at("replicas"), knownvalue.Int64Exact(replicas)),
			plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
			plancheck.ExpectKnownValue(agentAddr, at("config_sha256"), knownvalue.NotNull()),
		}}
	}
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: runtimeFactories(t, rt),
		Steps: append([]resource.TestStep{
			{
				Config: memCfg(toml),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("replicas"), knownvalue.Int64Exact(2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{sameInstance.AddStateValue(agentAddr, at("instance"))},
			},
			{
				PreConfig:         func() { rt.setDefault(3) },
				Config:            memCfg(toml),
				ConfigPlanChecks:  scales(3),
				ConfigStateChecks: []statecheck.StateCheck{sameInstance.AddStateValue(agentAddr, at("instance"))},
			},
			{
				Config:            memCfg(toml, "  replicas = 5"),
				ConfigPlanChecks:  scales(5),
				ConfigStateChecks: []statecheck.StateCheck{sameInstance.AddStateValue(agentAddr, at("instance"))},
			},
		}, importSteps(agentAddr, "replicas-plan")...),
	})
}

// TestAgentReplicasImport: an agent running the one instance that is the
// default imports with an empty plan, whether its config leaves replicas
// out or sets it to one, on an adapter that runs replicas and on one that
// does not.
func TestAgentReplicasImport(t *testing.T) {
	runtimes := map[string]func() agentruntime.Runtime{
		"replicas":   func() agentruntime.Runtime { return newReplicaRuntime(1) },
		"one always": func() agentruntime.Runtime { return memory.New() },
	}
	for name, newRuntime := range runtimes {
		for _, extra := range []string{"", "  replicas = 1"} {
			t.Run(name+"/"+strings.TrimSpace(extra), func(t *testing.T) {
				unitTest(t, resource.TestCase{
					ProtoV6ProviderFactories: runtimeFactories(t, newRuntime()),
					Steps: append([]resource.TestStep{{
						Config: memCfg("[agent]\nname = \"Replicas Import\"", extra),
						Check:  resource.TestCheckResourceAttr(agentAddr, "replicas", "1"),
					}}, importSteps(agentAddr, "replicas-import")...),
				})
			})
		}
	}
}
