package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// An agent names its env allowlist by name, or by the allowlist's
// `reference`: the name, the variables the allowlist will have once
// applied and a mark of the state dir it is kept in,
// "name:VAR_A,VAR_B@mark". Terraform shows a resource no other's plan, so
// the reference is how an agent planned in the same change as its
// allowlist learns the variables that change gives it, and whether its own
// provider will find the allowlist: an allowlist is kept in the state dir
// of the provider that declares it, and an agent reads allowlists from its
// own provider's state dir only.
const (
	referenceSeparator = ":"
	stateDirSeparator  = "@"
)

// stateDirMarkLength is how many hex digits of a state dir path's digest
// mark a reference: enough to tell apart the state dirs of one machine.
const stateDirMarkLength = 12

// stateDirMark is the mark references carry of the state dir at path,
// which is absolute; empty for none (a store of no state dir, in tests).
func stateDirMark(path string) string {
	if path == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:])[:stateDirMarkLength]
}

var stateDirMarkPattern = regexp.MustCompile(`^[0-9a-f]{` + strconv.Itoa(stateDirMarkLength) + `}$`)

// allowlistReference renders the reference of allowlist name with
// variables, kept in the state dir of mark.
func allowlistReference(name string, variables []string, mark string) string {
	sorted := slices.Sorted(slices.Values(variables))
	ref := name + referenceSeparator + strings.Join(sorted, ",")
	if mark != "" {
		ref += stateDirSeparator + mark
	}
	return ref
}

// parsedAllowlist is what an agent's env_allowlist says.
type parsedAllowlist struct {
	name string
	// planned holds the allowlist's planned variables when env_allowlist is
	// a reference; nil for a bare name.
	planned *agentruntime.EnvAllowlist
	// stateDirMark marks the state dir a reference says the allowlist is
	// kept in; empty for a bare name or a reference that names none.
	stateDirMark string
}

func parseAllowlist(value string) (parsedAllowlist, error) {
	name, rest, isRef := strings.Cut(value, referenceSeparator)
	if agentconfig.Slug(name) != name || name == "" {
		return parsedAllowlist{}, fmt.Errorf("%q is neither an env allowlist name (lower-case letters, digits and single hyphens) "+
			"nor an a2a_env_allowlist's reference", value)
	}
	if !isRef {
		return parsedAllowlist{name: name}, nil
	}
	vars, mark, marked := strings.Cut(rest, stateDirSeparator)
	if marked && !stateDirMarkPattern.MatchString(mark) {
		return parsedAllowlist{}, fmt.Errorf("%q is not an a2a_env_allowlist's reference: %q does not mark a state dir", value, mark)
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
	return parsedAllowlist{name: name, planned: planned, stateDirMark: mark}, nil
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
