package agentruntime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestSurveyOfARuntimeWithoutSurvey: a runtime that cannot survey is
// surveyed by its List, naming nothing unreadable.
func TestSurveyOfARuntimeWithoutSurvey(t *testing.T) {
	ctx := context.Background()
	rt := memory.New()
	if _, err := rt.Provision(ctx, agentruntime.Spec{Config: []byte("[agent]\nname = \"Surveyed\"\n")}); err != nil {
		t.Fatal(err)
	}
	s, err := agentruntime.SurveyOf(ctx, rt)
	if err != nil || len(s.Agents) != 1 || s.Agents[0].ID != "surveyed" || len(s.Unreadable) != 0 {
		t.Fatalf("SurveyOf = %+v, %v; want the one agent and nothing unreadable", s, err)
	}
}

// TestSurveyAddUnreadable keeps an adapter's runtime error as it is, and
// makes any other error one of a damaged agent.
func TestSurveyAddUnreadable(t *testing.T) {
	var s agentruntime.Survey
	damaged := agentruntime.Errorf(agentruntime.KindDamaged, "list", "broken", nil, "record is damaged")
	s.AddUnreadable(fmt.Errorf("reading: %w", damaged))
	s.AddUnreadable(errors.New("something else"))
	if len(s.Unreadable) != 2 || s.Unreadable[0] != damaged || s.Unreadable[1].Kind != agentruntime.KindDamaged {
		t.Fatalf("Unreadable = %v", s.Unreadable)
	}
}
