package agentruntime

import (
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Prepared is a spec that passed the checks every adapter applies.
type Prepared struct {
	Config      *agentconfig.Config
	InjectedEnv []string
}

// Prepare checks the raw config against the allowlist first (so a refused
// config reveals nothing else), then parses it and checks what the agent
// host would otherwise refuse only when the agent starts, such as a signing
// key that is not a key. A pending allowlist leaves out the env check, and
// no variable to inject: such a spec is only checked, never provisioned.
func Prepare(spec Spec) (Prepared, error) {
	var inject []string
	if !spec.AllowlistPending {
		var err error
		if inject, err = CheckEnv(spec.Allowlist, spec.Config); err != nil {
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
	return Prepared{Config: cfg, InjectedEnv: inject}, nil
}
