package container

import (
	"context"
	"maps"
	"strings"
	"testing"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestSurveyNamesContainerWithoutConfig: a container that carries an
// agent's labels but no config (made or changed outside Terraform) is
// listed without a config, and a survey names it, with what to do, beside
// the agents it reads in full.
func TestSurveyNamesContainerWithoutConfig(t *testing.T) {
	scope := newScope(t)
	rt := newRuntime(t, testOptions(t, scope))
	ctx := testContext(t)
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Survey Whole")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(context.Background(), a.ID) })
	whole, err := rt.inspect(ctx, "test", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	labels := maps.Clone(whole.Config.Labels)
	labels[labelAgentID] = "survey-lost"
	lost, err := rt.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:   rt.containerName("survey-lost"),
		Config: &containertypes.Config{Image: whole.Config.Image, Labels: labels},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = rt.cli.ContainerRemove(context.Background(), lost.ID, client.ContainerRemoveOptions{Force: true})
	})

	listed, err := rt.List(ctx)
	if err != nil || len(listed) != 2 {
		t.Fatalf("List = %+v, %v; want both agents", listed, err)
	}
	s, err := rt.Survey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by id: survey-lost, then survey-whole.
	if len(s.Agents) != 2 || s.Agents[1].ID != a.ID || len(s.Agents[1].Config) == 0 || len(s.Agents[0].Config) != 0 {
		t.Errorf("Survey agents = %+v; want %s with its config and survey-lost without", s.Agents, a.ID)
	}
	if len(s.Unreadable) != 1 || s.Unreadable[0].ID != "survey-lost" || !agentruntime.IsKind(s.Unreadable[0], agentruntime.KindDamaged) ||
		!strings.Contains(s.Unreadable[0].Error(), "holds no agent config") {
		t.Errorf("Survey unreadable = %v; want survey-lost, damaged, holding no config", s.Unreadable)
	}
}
