// Package agenthost is the built-in agent host behind
// `terraform-provider-a2a run --config agent.toml`.
package agenthost

import (
	"fmt"
	"os"
)

// Subcommand is the argument that selects the agent host.
const Subcommand = "run"

// RunIfSubcommand turns the current process into the agent host when its
// first argument is the subcommand, and exits with the host's status. The
// provider binary calls it first thing; so do test binaries, which the
// runtime executes in place of the provider binary.
func RunIfSubcommand() {
	if len(os.Args) > 1 && os.Args[1] == Subcommand {
		os.Exit(Main(os.Args[2:]))
	}
}

// Main runs the agent host with the arguments after the subcommand and
// returns the process exit code.
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "agent host: not built yet", args)
	return 2
}
