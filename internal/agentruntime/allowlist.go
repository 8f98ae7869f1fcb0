package agentruntime

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// EnvAllowlist names the variables of the provider's environment an agent
// may receive. Everything else is denied.
type EnvAllowlist struct {
	Name        string   `json:"name"`
	Variables   []string `json:"variables"`
	Description string   `json:"description,omitempty"`
}

// Validate checks the allowlist's own shape.
func (a *EnvAllowlist) Validate() error {
	if a.Name == "" {
		return Errorf(KindInvalidConfig, "env allowlist", "", nil,
			"name is empty: agents name the allowlist they use, so give it a name of lower-case letters, digits and single hyphens")
	}
	if agentconfig.Slug(a.Name) != a.Name {
		return Errorf(KindInvalidConfig, "env allowlist", "", nil,
			"name %q must be lower-case letters, digits and single hyphens (try %q)", a.Name, agentconfig.Slug(a.Name))
	}
	var bad []string
	for _, v := range a.Variables {
		if !agentconfig.ValidEnvName(v) {
			bad = append(bad, v)
		}
	}
	if len(bad) > 0 {
		return &Error{Kind: KindInvalidConfig, Op: "env allowlist " + a.Name, Vars: bad,
			Msg: fmt.Sprintf("not valid environment variable names: %s", strings.Join(bad, ", "))}
	}
	return nil
}

// CheckEnv checks the raw config, before it is parsed, against the allowlist
// (nil denies all) and the names of the agent's write-only values, and
// returns the variables to inject from the provider's environment: those the
// config references and the allowlist allows, unless a write-only value of
// the same name takes their place. Every disallowed reference is named.
func CheckEnv(allow *EnvAllowlist, writeOnly []string, raw []byte) ([]string, error) {
	allowed := map[string]bool{}
	for _, v := range launch.Variables {
		allowed[v] = true
	}
	if allow != nil {
		for _, v := range allow.Variables {
			allowed[v] = true
		}
	}
	var inject, denied []string
	for _, ref := range agentconfig.References(raw) {
		switch {
		case slices.Contains(writeOnly, ref):
		case !allowed[ref]:
			denied = append(denied, ref)
		case !isExempt(ref):
			inject = append(inject, ref)
		}
	}
	if len(denied) > 0 {
		return nil, &Error{Kind: KindDisallowedEnv, Vars: denied, Msg: disallowedMessage(allow, writeOnly, raw, denied)}
	}
	sort.Strings(inject)
	return inject, nil
}

// disallowedMessage names each denied variable where the config first
// references it, and which allowed one it likely meant when one is close
// (MY_API_KEY for MY_APIKEY), and says what to do about it.
func disallowedMessage(allow *EnvAllowlist, writeOnly []string, raw []byte, denied []string) string {
	sites := agentconfig.FirstReferences(raw)
	var known []string
	if allow != nil {
		known = append(known, allow.Variables...)
	}
	known = append(append(known, writeOnly...), launch.Variables...)
	named := make([]string, len(denied))
	inComment := false
	for i, v := range denied {
		named[i] = fmt.Sprintf("%s (%s)", v, sites[v])
		if near := agentconfig.Suggest(v, known); near != "" {
			named[i] = fmt.Sprintf("%s (%s; did you mean %s?)", v, sites[v], near)
		}
		inComment = inComment || sites[v].InComment
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the agent config references disallowed variables %s: ", strings.Join(named, ", "))
	if allow != nil {
		fmt.Fprintf(&b, "env allowlist %q does not allow them and env_wo gives them no value. Add them to the allowlist's variables, give them values in env_wo, or remove the references", allow.Name)
	} else {
		b.WriteString("the agent names no env_allowlist, so it may reference only its env_wo values. List them in an " +
			"a2a_env_allowlist and name it in env_allowlist, give them values in env_wo, or remove the references")
	}
	if inComment {
		b.WriteString(" (a reference in a comment counts too: the config is checked as written, before it is parsed)")
	}
	b.WriteString(".")
	return b.String()
}

// isExempt tells the variables the adapters set for every agent (package
// launch), which a config may reference without an allowlist.
func isExempt(name string) bool { return slices.Contains(launch.Variables, name) }
