package agentconfig

import "strings"

// MaxIDLength keeps ids usable as container names and file names.
const MaxIDLength = 63

// Slug turns an agent name into its id: lower-case letters, digits and
// single hyphens, so "Echo Agent (EU)" becomes "echo-agent-eu".
func Slug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		default:
			hyphen = true
		}
	}
	id := b.String()
	if len(id) > MaxIDLength {
		id = strings.TrimRight(id[:MaxIDLength], "-")
	}
	return id
}
