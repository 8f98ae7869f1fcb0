// Command barehost is the agent host package built alone, the baseline
// bench/host.sh compares the host the adapters start (cmd/a2a-agent-host)
// with: whatever that executable adds to the package shows as a ratio
// above one.
package main

import (
	"os"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"
)

func main() { os.Exit(agenthost.Main("dev", os.Args[1:])) }
