package container

import "testing"

// TestEngineIsLocal: ports are asked of this machine only for an engine
// that publishes them here, and drawn from the remote range otherwise.
func TestEngineIsLocal(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"unix:///var/run/docker.sock", true},
		{"npipe:////./pipe/docker_engine", true},
		{"tcp://127.0.0.1:2376", true},
		{"tcp://[::1]:2376", true},
		{"tcp://localhost:2376", true},
		{"ssh://agent@127.0.0.1:2222", true},
		{"tcp://10.0.0.5:2376", false},
		{"ssh://agent@build-host", false},
		{"tcp://engine.example.com:2376", false},
	}
	for _, tt := range tests {
		r := &Runtime{engine: engineAddress{Host: tt.host}}
		if got := r.engineIsLocal(); got != tt.want {
			t.Errorf("engineIsLocal(%s) = %t, want %t", tt.host, got, tt.want)
		}
	}
}
