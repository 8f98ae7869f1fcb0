package agentruntime

import (
	"encoding/json"
	"testing"
)

func TestIdentitySame(t *testing.T) {
	dir := Identity{Adapter: "local", StateDir: "/a", StateDirID: "1"}
	tests := []struct {
		name string
		a, b Identity
		want bool
	}{
		{"equal", dir, dir, true},
		{"moved state dir keeps its id", dir, Identity{Adapter: "local", StateDir: "/b", StateDirID: "1"}, true},
		{"new state dir at the old path", dir, Identity{Adapter: "local", StateDir: "/a", StateDirID: "2"}, false},
		{"no ids: paths decide", Identity{Adapter: "local", StateDir: "/a"}, Identity{Adapter: "local", StateDir: "/a", StateDirID: "2"}, true},
		{"no ids, other path", Identity{Adapter: "local", StateDir: "/a"}, Identity{Adapter: "local", StateDir: "/b"}, false},
		{"other adapter", dir, Identity{Adapter: "container", Engine: "unix:///s", Scope: "default"}, false},
		{"other engine", Identity{Adapter: "container", Engine: "unix:///a", Scope: "default"}, Identity{Adapter: "container", Engine: "unix:///b", Scope: "default"}, false},
		{"other scope", Identity{Adapter: "container", Engine: "unix:///a", Scope: "x"}, Identity{Adapter: "container", Engine: "unix:///a", Scope: "y"}, false},
		{"other namespace", Identity{Adapter: "kubernetes", Engine: "https://k", Namespace: "a", Scope: "default"},
			Identity{Adapter: "kubernetes", Engine: "https://k", Namespace: "b", Scope: "default"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Same(tt.b); got != tt.want {
				t.Errorf("%v.Same(%v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := tt.b.Same(tt.a); got != tt.want {
				t.Errorf("Same is not symmetric for %v and %v", tt.a, tt.b)
			}
		})
	}
}

// TestIdentityStored reads identities as the provider stores them in an
// agent's private state, the form of releases that packed a kubernetes
// namespace into the scope included: an agent such a release recorded
// must not read as moved to another runtime.
func TestIdentityStored(t *testing.T) {
	kube := Identity{Adapter: AdapterKubernetes, Engine: "https://k", Namespace: "agents", Scope: "default"}
	tests := []struct {
		name, stored string
		want         Identity
	}{
		{"kubernetes", `{"adapter":"kubernetes","engine":"https://k","namespace":"agents","scope":"default"}`, kube},
		{"kubernetes, namespace packed into the scope", `{"adapter":"kubernetes","engine":"https://k","scope":"agents/default"}`, kube},
		{"container scope left alone", `{"adapter":"container","engine":"unix:///s","scope":"a/b"}`,
			Identity{Adapter: AdapterContainer, Engine: "unix:///s", Scope: "a/b"}},
		{"local", `{"adapter":"local","state_dir":"/s","state_dir_id":"1"}`, Identity{Adapter: AdapterLocal, StateDir: "/s", StateDirID: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Identity
			if err := json.Unmarshal([]byte(tt.stored), &got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want || !got.Same(tt.want) {
				t.Errorf("read %s as %#v, want %#v", tt.stored, got, tt.want)
			}
			raw, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again Identity
			if err := json.Unmarshal(raw, &again); err != nil || again != got {
				t.Errorf("stored again as %s, read back as %#v (%v), want %#v", raw, again, err, got)
			}
		})
	}
}
