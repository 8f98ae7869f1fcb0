package agentruntime

import (
	"errors"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// Prepared is a spec that passed the checks every adapter applies.
type Prepared struct {
	Config      *agentconfig.Config
	InjectedEnv []string
}

// Prepare checks the raw config against the allowlist first (so a refused
// config reveals nothing else), then parses it.
func Prepare(spec Spec) (Prepared, error) {
	inject, err := CheckEnv(spec.Allowlist, spec.Config)
	if err != nil {
		return Prepared{}, err
	}
	cfg, err := agentconfig.Parse(spec.Config)
	if err != nil {
		var cerr *agentconfig.Error
		if errors.As(err, &cerr) {
			return Prepared{}, &Error{Kind: KindInvalidConfig, Op: "provision", Err: err}
		}
		return Prepared{}, Errorf(KindInvalidConfig, "provision", "", err, "")
	}
	return Prepared{Config: cfg, InjectedEnv: inject}, nil
}
