package agentruntime

import "os"

// ChangedEnv names the injected variables whose value in the running agent,
// as running looks it up, is not the one the provider's environment holds
// now: a variable set, changed or unset since the agent started. Terraform
// never sees these values, so only the runtime can tell that a restart
// would give the agent others. The values are compared here and go no
// further.
func ChangedEnv(injected []string, running func(name string) (string, bool)) []string {
	var changed []string
	for _, name := range injected {
		had, wasSet := running(name)
		now, isSet := os.LookupEnv(name)
		if had != now || wasSet != isSet {
			changed = append(changed, name)
		}
	}
	return changed
}
