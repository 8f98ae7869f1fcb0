// Package agenthost is the built-in agent host behind
// `terraform-provider-a2a run --config agent.toml`.
package agenthost

import (
	"fmt"
	"os"
)

// Subcommand is the argument that selects the agent host.
const Subcommand = "run"

// Main runs the agent host with the arguments after the subcommand and
// returns the process exit code.
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "agent host: not built yet", args)
	return 2
}
