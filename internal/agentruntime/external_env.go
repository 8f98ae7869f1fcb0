package agentruntime

import (
	"os"
	"slices"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// BroughtLookup resolves the variables an operator's own agent program may
// reference in its [runtime] command and env: the values the runtime owns
// (PORT, HOST, A2A_ADVERTISED_URL) first, then the allowlisted variables of
// the provider's environment. Anything else is unset, so a config can never
// read what it was not given.
func BroughtLookup(o launch.Owned, allowed []string) agentconfig.Lookup {
	owned := o.Values()
	return func(name string) (string, bool) {
		if v, ok := owned[name]; ok {
			return v, true
		}
		if slices.Contains(allowed, name) {
			return os.LookupEnv(name)
		}
		return "", false
	}
}
