package agentruntime

import (
	"log/slog"
	"sort"
	"strings"
)

// WriteOnlyValues are an agent's write-only values, keyed by variable name.
// They reach the agent and the runtime's private store for it, nothing else:
// every way of printing them prints only their names.
type WriteOnlyValues map[string]string

// Names lists the variables, sorted.
func (s WriteOnlyValues) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// String names the variables, never their values.
func (s WriteOnlyValues) String() string { return "write-only values of " + describeNames(s.Names()) }

// GoString is String, so that %#v does not print values either.
func (s WriteOnlyValues) GoString() string { return s.String() }

// LogValue keeps values out of structured logs.
func (s WriteOnlyValues) LogValue() slog.Value { return slog.StringValue(s.String()) }

func describeNames(names []string) string {
	if len(names) == 0 {
		return "no variables"
	}
	return strings.Join(names, ", ")
}
