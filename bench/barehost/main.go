// Command barehost is the agent host built alone, without the provider's
// Terraform, gRPC and Docker dependencies: the baseline bench/host-rss.sh
// compares the memory of agents run by the provider executable with.
package main

import "github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"

func main() { agenthost.RunIfSubcommand() }
