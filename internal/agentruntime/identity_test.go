package agentruntime

import "testing"

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
