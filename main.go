// Command terraform-provider-a2a is the Terraform provider for A2A agents.
// The agents it runs with the built-in host run a2a-agent-host, a program of
// its own that the release archive holds beside this one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/provider"
)

// version is set by the release build.
var version = "dev"

// formerHostSubcommand ran the agent host in this executable before it
// became a2a-agent-host; whoever still types it is told where it went.
const formerHostSubcommand = "run"

func main() {
	if len(os.Args) > 1 && os.Args[1] == formerHostSubcommand {
		_, _ = fmt.Fprintln(os.Stderr, hostMoved())
		os.Exit(2)
	}

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

// usage says what the binary is, and where the agent host an operator may
// start by hand is.
func usage() {
	out := flag.CommandLine.Output()
	_, _ = fmt.Fprintf(out, `Usage:
  terraform-provider-a2a [-debug]
      The Terraform provider for A2A agents. Terraform starts it; it is not run by hand.
      The built-in agent host is %[1]s, beside it: %[1]s --help lists its flags.

Flags:
`, launch.HostExecutable)
	flag.PrintDefaults()
}

// hostMoved tells whoever runs `terraform-provider-a2a run` that the agent
// host is a program of its own, and where this provider looks for it.
func hostMoved() string {
	where := "beside this executable"
	if path, err := hostexe.Beside(); err == nil {
		where = "at " + path
	}
	return fmt.Sprintf("terraform-provider-a2a: %q is no longer a subcommand: the agent host is %s, a program of its own "+
		"that the release archive holds beside the provider (this provider looks for it %s). Run it with the same "+
		"flags: %s --config agent.toml", formerHostSubcommand, launch.HostExecutable, where, launch.HostExecutable)
}

// quietLogs returns the variables that turn off the SDK's and the
// provider's own logs when nothing in environ asks for a provider's logs:
// Terraform shows them only under TF_LOG or TF_LOG_PROVIDER, and discards
// them otherwise, yet every line would still be built, written and read
// back, a third of the time a plan over many agents takes. The SDK's
// subsystems, the framework's and the protocol's, take no level from
// TF_LOG_SDK: without one of their own they would still build every line,
// for each attribute of each request, before the root logger dropped it.
// Whoever sets any of those variables, or TF_LOG_SDK and its kin, gets
// every log as before.
func quietLogs(environ []string) map[string]string {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		asks := name == "TF_LOG" || strings.HasPrefix(name, "TF_LOG_PROVIDER") || strings.HasPrefix(name, "TF_LOG_SDK")
		if asks && value != "" {
			return nil
		}
	}
	return map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_FRAMEWORK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_PROVIDER_A2A": "off"}
}
