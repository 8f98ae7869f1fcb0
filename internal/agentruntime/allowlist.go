package agentruntime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// ExemptVariables are owned by the adapters, which set them for every agent,
// so a config may reference them without an allowlist.
var ExemptVariables = []string{"HOST"}

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
// (nil denies all) and returns the variables to inject: those the config
// references and the allowlist allows. Every disallowed reference is named.
func CheckEnv(allow *EnvAllowlist, raw []byte) ([]string, error) {
	allowed := map[string]bool{}
	for _, v := range ExemptVariables {
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
		case !allowed[ref]:
			denied = append(denied, ref)
		case !isExempt(ref):
			inject = append(inject, ref)
		}
	}
	if len(denied) > 0 {
		where := "the agent names no env_allowlist, so it may reference no variables"
		if allow != nil {
			where = fmt.Sprintf("env allowlist %q does not allow them", allow.Name)
		}
		return nil, &Error{Kind: KindDisallowedEnv, Op: "check env", Vars: denied,
			Msg: fmt.Sprintf("config references disallowed variables %s: %s; add them to an a2a_env_allowlist the agent names",
				strings.Join(denied, ", "), where)}
	}
	sort.Strings(inject)
	return inject, nil
}

func isExempt(name string) bool {
	for _, v := range ExemptVariables {
		if v == name {
			return true
		}
	}
	return false
}
