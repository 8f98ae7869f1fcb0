package agentconfig

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
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

// Substitute rewrites s piece by piece: each stretch of text between
// references by text, and each reference by ref, given its name and its
// default (hasDefault false for a plain ${NAME}). An adapter uses it to
// hand references on to an expander of its own, such as a Kubernetes pod's
// $(NAME), where expanding them here would put their values on show.
func Substitute(s string, text func(string) string, ref func(name, def string, hasDefault bool) string) string {
	var b strings.Builder
	last := 0
	for _, m := range reference.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(text(s[last:m[0]]))
		def, hasDefault := "", m[4] >= 0
		if hasDefault {
			def = s[m[6]:m[7]]
		}
		b.WriteString(ref(s[m[2]:m[3]], def, hasDefault))
		last = m[1]
	}
	b.WriteString(text(s[last:]))
	return b.String()
}

// Lookup returns a variable's value and whether it is set, like os.LookupEnv.
type Lookup func(name string) (string, bool)

// literalOnly are the keys whose references are never expanded: those the
// runtime must know before the agent starts (validation refuses a
// reference in them), and the [runtime] table, which the agent host does
// not read (Runtime.Expanded expands what of it an adapter runs). Every
// other string of the config is expanded.
var literalOnly = map[string]bool{
	"agent.name":            true,
	"server.host":           true,
	"server.advertised_url": true,
	"handler.type":          true,
	"runtime":               true,
}

// Expand replaces references in every string value of the config, except
// under the literalOnly keys, with values from lookup. A variable that is
// unset and has no default is an error naming it, so an agent never starts
// with a silently empty secret.
func (c *Config) Expand(lookup Lookup) error {
	x := expander{lookup: lookup}
	expandValue("", reflect.ValueOf(c).Elem(), x.expand)
	return x.err()
}

// Unresolved lists, sorted and without repeats, the variables that Expand
// with lookup would find unset with no default. It leaves the config as it
// is.
func (c *Config) Unresolved(lookup Lookup) []string {
	x := expander{lookup: lookup}
	expandValue("", reflect.ValueOf(c).Elem(), func(s string) string {
		x.expand(s)
		return s
	})
	sort.Strings(x.missing)
	return slices.Compact(x.missing)
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

// expandValue applies expand to every string in v, the value of the dotted
// key, walking tables, arrays and maps as schema.go reads their keys.
func expandValue(key string, v reflect.Value, expand func(string) string) {
	if literalOnly[key] {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(expand(v.String()))
	case reflect.Pointer:
		if !v.IsNil() {
			expandValue(key, v.Elem(), expand)
		}
	case reflect.Slice:
		for i := range v.Len() {
			expandValue(key, v.Index(i), expand)
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			return
		}
		for _, k := range v.MapKeys() {
			v.SetMapIndex(k, reflect.ValueOf(expand(v.MapIndex(k).String())).Convert(v.Type().Elem()))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			expandValue(join(key, name), v.Field(i), expand)
		}
	}
}
