//go:build linux

package local

import (
	"bytes"
	"os"
)

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

// startedEnv looks up the variables process pid was started with, as
// /proc keeps them; when they cannot be read (the process is gone, or
// another user's), ok is false and nothing can be told to have changed.
func startedEnv(pid int) (lookup func(string) (string, bool), ok bool) {
	env, _ := readEnviron(pid, make([]byte, environBuffer))
	if env == nil {
		return nil, false
	}
	values := map[string]string{}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if k, v, found := bytes.Cut(kv, []byte{'='}); found {
			values[string(k)] = string(v)
		}
	}
	return func(name string) (string, bool) { v, set := values[name]; return v, set }, true
}
