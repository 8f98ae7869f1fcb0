package statedir

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

func newStore(t *testing.T) *Allowlists {
	t.Helper()
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return NewAllowlists(d)
}

func TestAllowlistsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	in := []agentruntime.EnvAllowlist{
		{Name: "llm", Variables: []string{"OPENAI_API_KEY", "MODEL", "MODEL"}, Description: "model access"},
		{Name: "auth", Variables: []string{"TOKEN"}},
	}
	for _, a := range in {
		if err := s.Put(ctx, a); err != nil {
			t.Fatalf("Put %s: %v", a.Name, err)
		}
	}
	got, err := s.Get(ctx, "llm")
	if err != nil {
		t.Fatal(err)
	}
	want := agentruntime.EnvAllowlist{Name: "llm", Variables: []string{"MODEL", "OPENAI_API_KEY"}, Description: "model access"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v, want %+v (variables sorted, duplicates dropped)", got, want)
	}
	if names, err := s.dir.Names(allowlistDir, ".json"); err != nil || !reflect.DeepEqual(names, []string{"auth", "llm"}) {
		t.Errorf("allowlist files = %v, %v; want auth and llm", names, err)
	}
	info, err := os.Stat(s.dir.Join(allowlistFile("llm")))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("allowlist file mode %04o, want 0600", info.Mode().Perm())
	}

	replaced := agentruntime.EnvAllowlist{Name: "llm", Variables: []string{"MODEL"}}
	if err := s.Put(ctx, replaced); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, "llm"); !reflect.DeepEqual(got, replaced) {
		t.Errorf("after replace Get = %+v, want %+v", got, replaced)
	}

	if err := s.Delete(ctx, "llm"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "llm"); err != nil {
		t.Errorf("second Delete = %v, want success", err)
	}
	if _, err := s.Get(ctx, "llm"); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Delete = %v, want not found", err)
	}
}

func TestAllowlistsRefuse(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tests := []struct {
		name string
		op   func() error
		kind agentruntime.Kind
	}{
		{"unknown name", func() error { _, err := s.Get(ctx, "nope"); return err }, agentruntime.KindNotFound},
		{"path in name on get", func() error { _, err := s.Get(ctx, "../x"); return err }, agentruntime.KindInvalidConfig},
		{"path in name on delete", func() error { return s.Delete(ctx, "../x") }, agentruntime.KindInvalidConfig},
		{"bad name on put", func() error {
			return s.Put(ctx, agentruntime.EnvAllowlist{Name: "Not A Slug"})
		}, agentruntime.KindInvalidConfig},
		{"bad variable on put", func() error {
			return s.Put(ctx, agentruntime.EnvAllowlist{Name: "ok", Variables: []string{"1BAD"}})
		}, agentruntime.KindInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.op(); !agentruntime.IsKind(err, tt.kind) {
				t.Errorf("error = %v, want kind %d", err, tt.kind)
			}
		})
	}
	if names, err := s.dir.Names(allowlistDir, ".json"); err != nil || len(names) != 0 {
		t.Errorf("allowlist files after refused puts = %v, %v; want none", names, err)
	}
}
