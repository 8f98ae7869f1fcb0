//go:build linux

package local

import "os"

// passedThrough are the provider's variables every agent gets: what a
// process needs to run at all, and nothing that could carry a secret.
var passedThrough = []string{"PATH", "HOME", "TMPDIR", "LANG"}

// childEnv builds an agent's whole environment: the pass-through variables,
// HOST (owned by the adapter: where the agent listens), and the allowlisted
// variables its config references, valued from the provider's environment
// now, at start, and never stored.
func childEnv(host string, injected []string) []string {
	env := make([]string, 0, len(passedThrough)+1+len(injected))
	for _, names := range [][]string{passedThrough, injected} {
		for _, name := range names {
			if v, ok := os.LookupEnv(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	return append(env, "HOST="+host)
}
