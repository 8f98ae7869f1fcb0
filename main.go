// Command terraform-provider-a2a is the Terraform provider for A2A agents.
// Its `run` subcommand is the built-in agent host the local and container
// adapters start, so one binary is all an operator installs.
package main

import (
	"context"
	"flag"
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
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
