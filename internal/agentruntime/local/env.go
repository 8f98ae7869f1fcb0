//go:build linux

package local

import "os"

// passedThrough are the provider's variables every agent gets: what a
// process needs to run at all, and nothing that could carry a secret.
var passedThrough = []string{"PATH", "HOME", "TMPDIR", "LANG"}

// childEnv builds an agent's environment but for the variables the adapter
// owns: the pass-through variables and the allowlisted variables its config
// references, valued from the provider's environment now, at start, and
// never stored.
func childEnv(injected []string) []string {
	env := make([]string, 0, len(passedThrough)+len(injected))
	for _, names := range [][]string{passedThrough, injected} {
		for _, name := range names {
			if v, ok := os.LookupEnv(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	return env
}
