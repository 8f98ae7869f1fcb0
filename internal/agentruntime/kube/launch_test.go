package kube

import (
	"slices"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// TestBuiltInPodIsGivenOwnedVariables: a pod of the built-in host holds
// PORT, HOST and A2A_ADVERTISED_URL, as a brought agent's does, and the
// host is told to listen and advertise at the same, and the provider's
// release, which it must be of. The contract suite shows the agent using
// them on a cluster; this needs none.
func TestBuiltInPodIsGivenOwnedVariables(t *testing.T) {
	rt := &Runtime{opts: Options{Namespace: "agents", Scope: DefaultScope, Resources: DefaultResources, Version: "1.2.0"}}
	cfg, err := agentconfig.Parse(agentConfig("Owned"))
	if err != nil {
		t.Fatal(err)
	}
	b := blueprint{name: "a2a-owned", cfg: cfg, port: 8123, replicas: 1}
	c := rt.deployment(b, 1, false, "").Spec.Template.Spec.Containers[0]
	endpoint := "http://a2a-owned.agents.svc.cluster.local:8123"
	env := map[string]string{}
	for _, v := range c.Env {
		env[v.Name] = v.Value
	}
	for name, want := range map[string]string{"PORT": "8080", "HOST": "0.0.0.0", "A2A_ADVERTISED_URL": endpoint} {
		if env[name] != want {
			t.Errorf("the pod's %s = %q, want %q", name, env[name], want)
		}
	}
	for _, flag := range [][]string{{"--host", "0.0.0.0"}, {"--port", "8080"}, {"--advertised-url", endpoint}, {"--provider-version", "1.2.0"}} {
		if i := slices.Index(c.Args, flag[0]); i < 0 || i+1 == len(c.Args) || c.Args[i+1] != flag[1] {
			t.Errorf("the host's args %q lack %s %s", c.Args, flag[0], flag[1])
		}
	}
}
