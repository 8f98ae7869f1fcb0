package writeonly

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

func TestStore(t *testing.T) {
	dir, err := statedir.Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(dir, "local/secrets")
	values := map[string]string{"TOKEN": "line one\nline \"two\"", "EMPTY": ""}
	if err := s.Put("agent", values); err != nil {
		t.Fatal(err)
	}
	p, ok, err := s.Path("agent")
	if err != nil || !ok {
		t.Fatalf("Path() = %q, %v, %v; want the file", p, ok, err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode = %o, want 600", perm)
	}
	got, err := Read(p)
	if err != nil || !reflect.DeepEqual(got, values) {
		t.Errorf("Read() = %v, %v; want %v", got, err, values)
	}
	if err := s.Put("agent", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Path("agent"); ok {
		t.Error("Put(no values) left the file")
	}
	if err := s.Remove("agent"); err != nil {
		t.Errorf("Remove() of a missing file = %v, want success", err)
	}
	if err := s.Put("../escape", values); err == nil {
		t.Error("Put() took an id that names a path outside the store")
	}
}

func TestReadNamesNoContent(t *testing.T) {
	tests := map[string]string{
		"not json":     `TOKEN=hunter2-secret`,
		"not strings":  `{"TOKEN": ["hunter2-secret"]}`,
		"invalid name": `{"1TOKEN": "hunter2-secret"}`,
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "env.json")
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Read(p)
			if err == nil {
				t.Fatal("Read() succeeded, want an error")
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Read() error %q quotes the file's content", err)
			}
		})
	}
}
