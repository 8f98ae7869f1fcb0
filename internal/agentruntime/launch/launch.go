// Package launch is the contract between the runtime adapters and the
// agents they run, written once for all of them: the variables every agent
// is given, built in or brought (PORT, HOST and A2A_ADVERTISED_URL), the
// built-in agent host's command line, the variable that carries its config
// into a container or pod, and where its write-only values lie there. The
// agent host reads its flags by the names given here, so that what an
// adapter passes and what the host reads cannot drift apart.
package launch

import (
	"iter"
	"strconv"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// HostExecutable is the built-in agent host's executable: the release
// archive holds it beside the provider's, and the base image an agent runs
// in a container or pod has it as its entrypoint. It is a program of its
// own, so that an agent loads only what the host needs, none of the
// provider's Terraform, Docker or Kubernetes libraries.
const HostExecutable = "a2a-agent-host"

// VersionArg, the host's only argument, makes it print its release and
// exit: what a provider asks of a host before it starts agents with it.
const VersionArg = "version"

// SupervisorArg, the host's first argument, makes it the supervisor of one
// local agent rather than an agent: a small process that outlives the
// provider, runs the agent and restarts it under its restart policy. The
// local adapter alone passes it; its flags are the adapter's own business.
const SupervisorArg = "supervise"

// The agent host's flags, by name (without the leading dashes).
const (
	ConfigFlag        = "config"         // the config's file
	ConfigEnvFlag     = "config-env"     // the variable that holds the config
	HostFlag          = "host"           // overrides [server] host
	PortFlag          = "port"           // overrides [server] http_port
	AdvertisedURLFlag = "advertised-url" // overrides [server] advertised_url
	WriteOnlyFileFlag = "env-file"       // the write-only values' file (package writeonly)
	// ProviderVersionFlag names the release of the provider that starts
	// the host, which refuses to serve when its own release differs.
	ProviderVersionFlag = "provider-version"
)

// ConfigEnvVar carries the config into a container or pod, so that it
// reaches remote engines, clusters and read-only root filesystems alike,
// with no file of this machine mounted.
const ConfigEnvVar = "A2A_AGENT_CONFIG"

// In a container or pod an agent's write-only values are the file
// WriteOnlyFileName in WriteOnlyDir, a volume the adapter mounts there.
const (
	WriteOnlyDir      = "/run/a2a"
	WriteOnlyFileName = "env.json"
	WriteOnlyFilePath = WriteOnlyDir + "/" + WriteOnlyFileName
)

// ListenAll is the HOST of an agent in a container or pod: every address of
// its own network namespace, from which the engine or the Service publishes
// its port alone.
const ListenAll = "0.0.0.0"

// Variables names what the runtime gives every agent, in the order it sets
// them. A config may reference them without an allowlist.
var Variables = []string{agentconfig.HostVar, agentconfig.PortVar, agentconfig.AdvertisedURLVar}

// Owned are the values of Variables for one agent.
type Owned struct {
	Host          string // the address it listens on, where it runs
	Port          int    // the port it listens on, where it runs
	AdvertisedURL string // its endpoint: where clients reach it
}

// All yields each of Variables and its value, in order.
func (o Owned) All() iter.Seq2[string, string] {
	values := o.Values()
	return func(yield func(name, value string) bool) {
		for _, name := range Variables {
			if !yield(name, values[name]) {
				return
			}
		}
	}
}

// Values maps each of Variables to its value.
func (o Owned) Values() map[string]string {
	return map[string]string{
		agentconfig.HostVar:          o.Host,
		agentconfig.PortVar:          strconv.Itoa(o.Port),
		agentconfig.AdvertisedURLVar: o.AdvertisedURL,
	}
}

// Env is the variables as an environment's NAME=value entries.
func (o Owned) Env() []string {
	env := make([]string, 0, len(Variables))
	for name, value := range o.All() {
		env = append(env, name+"="+value)
	}
	return env
}

// Host is the built-in agent host's command line for one agent.
type Host struct {
	// ConfigFile is the config's path where the host runs; empty, the
	// config is in ConfigEnvVar.
	ConfigFile string
	// Owned is where the host listens and the endpoint it advertises: the
	// values the agent is given, so that the two always agree.
	Owned Owned
	// WriteOnlyFile is the write-only values' file where the host runs; empty
	// for an agent that has none.
	WriteOnlyFile string
	// ProviderVersion is the starting provider's release, which the host's
	// own must equal; empty, the host does not compare them.
	ProviderVersion string
}

// Args are the host's arguments.
func (h Host) Args() []string {
	args := []string{"--" + ConfigEnvFlag, ConfigEnvVar}
	if h.ConfigFile != "" {
		args = []string{"--" + ConfigFlag, h.ConfigFile}
	}
	args = append(args, "--"+HostFlag, h.Owned.Host, "--"+PortFlag, strconv.Itoa(h.Owned.Port),
		"--"+AdvertisedURLFlag, h.Owned.AdvertisedURL)
	if h.WriteOnlyFile != "" {
		args = append(args, "--"+WriteOnlyFileFlag, h.WriteOnlyFile)
	}
	if h.ProviderVersion != "" {
		args = append(args, "--"+ProviderVersionFlag, h.ProviderVersion)
	}
	return args
}
