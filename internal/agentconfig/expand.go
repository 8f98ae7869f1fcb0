package agentconfig

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// reference matches ${VAR} and ${VAR:-default}. Names follow POSIX rules.
var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// validEnvName is the shape of an environment variable name.
var validEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidEnvName reports whether name can be an environment variable name.
func ValidEnvName(name string) bool { return validEnvName.MatchString(name) }

// HasReference reports whether s references any variable.
func HasReference(s string) bool { return reference.MatchString(s) }

// References lists the distinct variables raw text references, sorted. It
// reads the raw bytes, not a parsed config, so that a config is checked
// against an allowlist before anything else is learnt from it.
func References(raw []byte) []string {
	set := map[string]bool{}
	for _, m := range reference.FindAllSubmatch(raw, -1) {
		set[string(m[1])] = true
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a variable's value and whether it is set, like os.LookupEnv.
type Lookup func(name string) (string, bool)

// Expand replaces references in every string value of the config with values
// from lookup. A variable that is unset and has no default is an error naming
// it, so an agent never starts with a silently empty secret.
func (c *Config) Expand(lookup Lookup) error {
	x := expander{lookup: lookup}
	for _, s := range c.stringFields() {
		*s = x.expand(*s)
	}
	return x.err()
}

// expander replaces references from lookup, collecting the unset ones.
type expander struct {
	lookup  Lookup
	missing []string
}

func (x *expander) expand(s string) string {
	return reference.ReplaceAllStringFunc(s, func(m string) string {
		sub := reference.FindStringSubmatch(m)
		if v, ok := x.lookup(sub[1]); ok {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		x.missing = append(x.missing, sub[1])
		return ""
	})
}

func (x *expander) err() error {
	if len(x.missing) > 0 {
		return fmt.Errorf("agent config references unset variables with no default: %s", strings.Join(x.missing, ", "))
	}
	return nil
}

func (c *Config) stringFields() []*string {
	fields := []*string{
		&c.Agent.Description, &c.Agent.Version, &c.Agent.DocumentationURL,
		&c.Server.Host, &c.Server.AdvertisedURL,
		&c.Auth.BearerToken, &c.Card.SigningKey, &c.Runtime.Image,
	}
	if p := c.Agent.Provider; p != nil {
		fields = append(fields, &p.Organization, &p.URL)
	}
	if l := c.Handler.LLM; l != nil {
		fields = append(fields, &l.BaseURL, &l.Model, &l.APIKey, &l.SystemPrompt)
	}
	for i := range c.Skills {
		s := &c.Skills[i]
		fields = append(fields, &s.Name, &s.Description)
		for j := range s.Tags {
			fields = append(fields, &s.Tags[j])
		}
		for j := range s.Examples {
			fields = append(fields, &s.Examples[j])
		}
	}
	return fields
}
