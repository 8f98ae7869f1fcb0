package card

import (
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestUnreachableInterfaces(t *testing.T) {
	const endpoint = "http://127.0.0.1:49152"
	tests := []struct {
		name string
		urls []string
		want []string
	}{
		{"the endpoint itself", []string{"http://127.0.0.1:49152"}, nil},
		{"below the endpoint, by another loopback name", []string{"http://localhost:49152/a2a/v1"}, nil},
		{"listen address inside a container", []string{"http://0.0.0.0:8080"}, []string{"http://0.0.0.0:8080"}},
		{"port inside the container", []string{"http://127.0.0.1:8080/"}, []string{"http://127.0.0.1:8080/"}},
		{"another scheme", []string{"https://127.0.0.1:49152"}, []string{"https://127.0.0.1:49152"}},
		{"one of two", []string{"http://127.0.0.1:49152", "http://agent:9000"}, []string{"http://agent:9000"}},
		{"not an http URL", []string{"127.0.0.1:50051"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &a2a.AgentCard{}
			for _, u := range tt.urls {
				c.SupportedInterfaces = append(c.SupportedInterfaces, &a2a.AgentInterface{URL: u, ProtocolBinding: a2a.TransportProtocolJSONRPC})
			}
			if got := UnreachableInterfaces(c, endpoint); !slices.Equal(got, tt.want) {
				t.Errorf("UnreachableInterfaces = %q, want %q", got, tt.want)
			}
		})
	}
	if got := UnreachableInterfaces(&a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{{URL: "http://x:1"}}}, "https://a.example.com"); !slices.Equal(got, []string{"http://x:1"}) {
		t.Errorf("against a default port: %q", got)
	}
}
