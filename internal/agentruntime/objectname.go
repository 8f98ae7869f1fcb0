package agentruntime

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// scopePattern is what a scope may be: lower-case letters, digits and
// hyphens, at most 20, starting and ending with a letter or digit, so that
// it fits in object names and label values.
var scopePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,18}[a-z0-9])?$`)

// ValidScope reports whether scope may separate agents in object names.
func ValidScope(scope string) bool { return scopePattern.MatchString(scope) }

// maxObjectName is the length of a DNS label, which Kubernetes takes as a
// Service name and engines resolve container names as.
const maxObjectName = 63

// digestLength is how many hex digits of its long name a cut name keeps.
const digestLength = 16

// ObjectName is the name of the objects (containers, Deployments,
// Services) of agent id in scope, where "" is the adapter's default scope:
//
//	default scope   a2a-<id>
//	another scope   a2a-<id>--<scope>
//	either, longer  a2a-<id cut to 40>---<16 hex digits of the SHA-256
//	than 63         of the long name>
//
// Every name is a DNS label of at most 63 characters that no other agent
// of any scope gets: an id has no "--" and ends in a letter or digit, so
// the first "--" of a name ends the id, or its cut, and what follows is
// the scope, which starts with a letter or digit, or else a "-" and the
// digest. Only two long names that share the first 40 characters of their
// id and the digest would meet.
func ObjectName(scope, id string) string {
	name := "a2a-" + id
	if scope != "" {
		name += "--" + scope
	}
	if len(name) <= maxObjectName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	cut := maxObjectName - len("a2a-") - len("---") - digestLength
	return "a2a-" + strings.TrimRight(id[:min(cut, len(id))], "-") + "---" + hex.EncodeToString(sum[:])[:digestLength]
}
