package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// An agent names its env allowlist by name, or by the allowlist's
// `reference`: the name and the variables the allowlist will have once
// applied, "name:VAR_A,VAR_B". Terraform shows a resource no other's plan,
// so the reference is how an agent planned in the same change as its
// allowlist learns the variables that change gives it.
const referenceSeparator = ":"

// allowlistReference renders the reference of allowlist name with variables.
func allowlistReference(name string, variables []string) string {
	sorted := slices.Sorted(slices.Values(variables))
	return name + referenceSeparator + strings.Join(sorted, ",")
}

// parsedAllowlist is what an agent's env_allowlist says.
type parsedAllowlist struct {
	name string
	// planned holds the allowlist's planned variables when env_allowlist is
	// a reference; nil for a bare name.
	planned *agentruntime.EnvAllowlist
}

func parseAllowlist(value string) (parsedAllowlist, error) {
	name, vars, isRef := strings.Cut(value, referenceSeparator)
	if agentconfig.Slug(name) != name || name == "" {
		return parsedAllowlist{}, fmt.Errorf("%q is neither an env allowlist name (lower-case letters, digits and single hyphens) "+
			"nor an a2a_env_allowlist's reference", value)
	}
	if !isRef {
		return parsedAllowlist{name: name}, nil
	}
	planned := &agentruntime.EnvAllowlist{Name: name, Variables: []string{}}
	if vars != "" {
		planned.Variables = strings.Split(vars, ",")
	}
	for _, v := range planned.Variables {
		if !agentconfig.ValidEnvName(v) {
			return parsedAllowlist{}, fmt.Errorf("%q is not an a2a_env_allowlist's reference: %q is not a variable name", value, v)
		}
	}
	return parsedAllowlist{name: name, planned: planned}, nil
}

// allowlistName is the name an agent's env_allowlist value names; empty
// for null or unknown.
func allowlistName(value types.String) string {
	if value.IsNull() || value.IsUnknown() {
		return ""
	}
	name, _, _ := strings.Cut(value.ValueString(), referenceSeparator)
	return name
}

// allowlistRefValidator accepts an allowlist name or reference.
func allowlistRefValidator() validator.String {
	return stringRule{
		description: "must be an env allowlist's name or its reference",
		summary:     "Invalid env allowlist",
		problem: func(value, _ string) string {
			if _, err := parseAllowlist(value); err != nil {
				return err.Error() + ": write a2a_env_allowlist.<name>.reference."
			}
			return ""
		},
	}
}
