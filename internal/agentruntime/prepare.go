package agentruntime

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Prepared is an agent as its spec describes it, once the spec passed the
// checks every adapter applies: what every adapter derives alike, so that
// none parses the config or checks its env again.
type Prepared struct {
	Config *agentconfig.Config
	// ID is the agent's id, and Digest the hex SHA-256 of its raw config.
	ID     string
	Digest string
	// Allowlist names the env allowlist the agent draws on; empty for none.
	Allowlist string
	// InjectedEnv are the variables the agent receives from the provider's
	// environment; none while the allowlist is pending.
	InjectedEnv []string
	// WriteOnly names the agent's write-only values, and WriteOnlyVersion
	// is the version the spec gives them.
	WriteOnly        []string
	WriteOnlyVersion string
	// FixedPort is the port the config fixes (server.http_port); zero
	// leaves it to the adapter. Every adapter gives an agent, in this
	// order: FixedPort; else the port the agent has; else PreferredPort,
	// when it is free; else a port it allocates.
	FixedPort     int
	PreferredPort int
}

// Prepare checks the raw config against the allowlist first (so a refused
// config reveals nothing else), then parses it and checks what the agent
// host would otherwise refuse only when the agent starts, such as a signing
// key that is not a key. A pending allowlist leaves out the env check, and
// no variable to inject: such a spec is only checked, never provisioned.
func Prepare(spec Spec) (Prepared, error) {
	writeOnly := spec.WriteOnly.Names()
	if owned := slices.DeleteFunc(slices.Clone(writeOnly), func(n string) bool { return !isExempt(n) }); len(owned) > 0 {
		return Prepared{}, Errorf(KindInvalidConfig, "provision", "", nil,
			"env_wo names %s, which the runtime sets for every agent (where it listens and is reached); remove it from env_wo",
			strings.Join(owned, ", "))
	}
	var inject []string
	if !spec.AllowlistPending {
		var err error
		if inject, err = CheckEnv(spec.Allowlist, writeOnly, spec.Config); err != nil {
			return Prepared{}, err
		}
	}
	cfg, err := agentconfig.Parse(spec.Config)
	if err == nil {
		err = card.CheckConfig(cfg)
	}
	if err != nil {
		return Prepared{}, &Error{Kind: KindInvalidConfig, Op: "provision", Err: err}
	}
	id := cfg.ID()
	if cfg.Runtime.Brought() && len(writeOnly) > 0 {
		return Prepared{}, Errorf(KindInvalidConfig, "provision", id, nil,
			"write-only values (env_wo %s) reach the built-in agent host only, which reads them from a file; an agent run from "+
				"[runtime] command or image takes its secrets as ${VAR} references to allowlisted variables of terraform's environment",
			strings.Join(writeOnly, ", "))
	}
	// A pending allowlist may allow any reference: the completeness check
	// then asks only that each has a value somewhere.
	mayInject := inject
	if spec.AllowlistPending {
		mayInject = agentconfig.References(spec.Config)
	}
	if err := checkComplete(cfg, spec.WriteOnly, mayInject); err != nil {
		return Prepared{}, err
	}
	p := Prepared{Config: cfg, ID: id, Digest: cfg.SHA256(), InjectedEnv: inject, WriteOnly: writeOnly, WriteOnlyVersion: spec.WriteOnlyVersion,
		FixedPort: cfg.Server.HTTPPort, PreferredPort: spec.PreferredPort}
	if spec.Allowlist != nil {
		p.Allowlist = spec.Allowlist.Name
	}
	return p, nil
}

// checkComplete makes sure every variable the config needs has a value:
// a write-only one, an allowlisted variable set in the provider's
// environment (where the agent's start reads it), an adapter-owned one, or
// a default. Otherwise the agent would refuse to start, after the agent it
// replaces had been stopped.
func checkComplete(cfg *agentconfig.Config, writeOnly WriteOnlyValues, inject []string) error {
	missing := cfg.Unresolved(func(name string) (string, bool) {
		if _, ok := writeOnly[name]; ok || isExempt(name) {
			return "", true
		}
		if !slices.Contains(inject, name) {
			return "", false
		}
		return os.LookupEnv(name)
	})
	if len(missing) == 0 {
		return nil
	}
	sites := agentconfig.FirstReferences(cfg.Raw())
	named := make([]string, len(missing))
	for i, v := range missing {
		named[i] = fmt.Sprintf("%s (%s)", v, sites[v])
	}
	return &Error{Kind: KindUnsetEnv, Op: "provision", ID: cfg.ID(), Vars: missing,
		Msg: fmt.Sprintf("the agent config references variables that have no value and no default: %s. Set them in the "+
			"environment terraform runs in (they are allowlisted), give them values in env_wo, or write a default "+
			"as ${NAME:-default}", strings.Join(named, ", "))}
}
