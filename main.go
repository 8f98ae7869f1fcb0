// Command terraform-provider-a2a is the Terraform provider for A2A agents.
// Its `run` subcommand is the built-in agent host the local and container
// adapters start, so one binary is all an operator installs.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/provider"
)

// version is set by the release build.
var version = "dev"

func main() {
	agenthost.RunIfSubcommand()

	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Usage = usage
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}

// usage names both things the binary does: Terraform starts it as the
// provider, and `run` is the agent host an operator may also start by hand.
func usage() {
	out := flag.CommandLine.Output()
	_, _ = fmt.Fprintf(out, `Usage:
  terraform-provider-a2a [-debug]
      The Terraform provider for A2A agents. Terraform starts it; it is not run by hand.
  terraform-provider-a2a %[1]s --config agent.toml [flags]
      The built-in agent host: serves the agent the config describes, its card and its
      A2A JSON-RPC endpoint. %[2]q lists its flags.

Flags:
`, agenthost.Subcommand, "terraform-provider-a2a "+agenthost.Subcommand+" --help")
	flag.PrintDefaults()
}
