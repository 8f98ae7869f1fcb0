// Command a2a-agent-host is the built-in agent host: it serves the agent an
// agent config describes, its card and its A2A JSON-RPC endpoint. The
// provider's runtime adapters start it, one process per agent; an operator
// may also start it by hand (`a2a-agent-host --help`). It is a program of
// its own, beside the provider in the release archive, so that each agent
// loads the host alone and none of the provider's Terraform, Docker or
// Kubernetes libraries.
package main

import (
	"os"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
)

// version is set by the release build, to the provider's own: the provider
// runs only a host of its release.
var version = "dev"

func main() {
	// The local adapter runs each agent under a supervisor, this program
	// re-run: it is of the provider's release, like the agents it runs.
	if len(os.Args) > 1 && os.Args[1] == launch.SupervisorArg {
		os.Exit(local.Supervise(os.Args[2:]))
	}
	os.Exit(agenthost.Main(version, os.Args[1:]))
}
