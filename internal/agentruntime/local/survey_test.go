//go:build linux

package local

import (
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestSurveyNamesUnreadableAgents damages one agent's record and another's
// config file: List passes over the first and gives the second without its
// config, as before, while Survey also names both, each with the file at
// fault and the remedy.
func TestSurveyNamesUnreadableAgents(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	for _, name := range []string{"Survey Fine", "Survey Record", "Survey Config"} {
		provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig(name, "")})
	}
	if err := rt.dir.WriteFile(recordFile("survey-record"), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if err := rt.dir.WriteFile(configFile("survey-config"), []byte("# changed by hand\n")); err != nil {
		t.Fatal(err)
	}
	s, err := rt.Survey(bg)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := rt.List(bg)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(agents []agentruntime.Agent) []string {
		var out []string
		for _, a := range agents {
			out = append(out, a.ID)
		}
		return out
	}
	if want := []string{"survey-config", "survey-fine"}; !slices.Equal(ids(s.Agents), want) || !slices.Equal(ids(listed), want) {
		t.Errorf("Survey lists %v and List %v, want %v", ids(s.Agents), ids(listed), want)
	}
	if s.Agents[0].Config != nil || s.Agents[1].Config == nil {
		t.Errorf("configs read back: %q, %q; want none for the damaged one", s.Agents[0].Config, s.Agents[1].Config)
	}
	want := []struct{ id, file string }{
		{"survey-config", rt.dir.Join(configFile("survey-config"))},
		{"survey-record", rt.dir.Join(recordFile("survey-record"))},
	}
	if len(s.Unreadable) != len(want) {
		t.Fatalf("Survey names %d unreadable agents (%v), want %d", len(s.Unreadable), s.Unreadable, len(want))
	}
	for i, w := range want {
		e := s.Unreadable[i]
		if e.ID != w.id || e.Kind != agentruntime.KindDamaged || !strings.Contains(e.Error(), w.file) ||
			!strings.Contains(e.Error(), "terraform apply provisions the agent afresh") {
			t.Errorf("unreadable agent %d is %v (%q), want %s damaged, naming %s and the remedy", i, e.ID, e, w.id, w.file)
		}
	}
}
