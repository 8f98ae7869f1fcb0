// Command terraform-provider-a2a is the Terraform provider for A2A agents.
// Its `run` subcommand is the built-in agent host the local and container
// adapters start, so one binary is all an operator installs.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

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
	if !debug {
		for name, level := range quietLogs(os.Environ()) {
			_ = os.Setenv(name, level)
		}
	}

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

// quietLogs returns the variables that turn off the SDK's and the
// provider's own logs when nothing in environ asks for a provider's logs:
// Terraform shows them only under TF_LOG or TF_LOG_PROVIDER, and discards
// them otherwise, yet every line would still be built, written and read
// back, a third of the time a plan over many agents takes. Whoever sets
// any of those variables, or TF_LOG_SDK and its kin, gets every log as
// before.
func quietLogs(environ []string) map[string]string {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		asks := name == "TF_LOG" || strings.HasPrefix(name, "TF_LOG_PROVIDER") || strings.HasPrefix(name, "TF_LOG_SDK")
		if asks && value != "" {
			return nil
		}
	}
	return map[string]string{"TF_LOG_SDK": "off", "TF_LOG_PROVIDER_A2A": "off"}
}
