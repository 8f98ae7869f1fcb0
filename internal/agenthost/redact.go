package agenthost

import (
	"cmp"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// minRedactedLength is the shortest expanded value the host hides: shorter
// ones are no secret worth the name, and replacing them would garble
// every message that happens to contain them.
const minRedactedLength = 4

// redactor replaces the values variables expanded to with the references
// that named them, so that diagnostics about an expanded value name the
// variable, never its value: a secret given as ${API_KEY} reads as
// ${API_KEY} in every error and log line.
type redactor struct {
	replacer *strings.Replacer
}

// expansionRecorder is a lookup that remembers what each variable
// expanded to.
type expansionRecorder struct {
	// preferred are the agent's write-only values, which take precedence
	// over its environment.
	preferred map[string]string

	mu     sync.Mutex
	values map[string]string
}

func (e *expansionRecorder) lookup(name string) (string, bool) {
	v, writeOnly := e.preferred[name]
	ok := writeOnly
	if !ok {
		v, ok = os.LookupEnv(name)
	}
	// The variables the runtime gives every agent say where it listens and
	// is reached, which its card shows anyway: hiding them would only
	// garble every line that names its address. A write-only value is
	// hidden whatever its name.
	public := !writeOnly && slices.Contains(launch.Variables, name)
	if ok && len(v) >= minRedactedLength && !public {
		e.mu.Lock()
		if e.values == nil {
			e.values = map[string]string{}
		}
		e.values[name] = v
		e.mu.Unlock()
	}
	return v, ok
}

func (e *expansionRecorder) redactor() *redactor {
	e.mu.Lock()
	defer e.mu.Unlock()
	return newRedactor(e.values)
}

// newRedactor hides the values of vars (name → value). Longer values are
// replaced first, so one that contains another is hidden whole.
func newRedactor(vars map[string]string) *redactor {
	names := make([]string, 0, len(vars))
	for name, v := range vars {
		if len(v) >= minRedactedLength {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(len(vars[b]), len(vars[a])) })
	pairs := make([]string, 0, 2*len(names))
	for _, name := range names {
		pairs = append(pairs, vars[name], "${"+name+"}")
	}
	return &redactor{replacer: strings.NewReplacer(pairs...)}
}

// String returns s with every expanded value replaced by its reference.
// A nil redactor leaves s as it is.
func (r *redactor) String(s string) string {
	if r == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// Writer returns w redacting what is written through it. The host's
// loggers write one whole line per call, so a value is never split
// between two writes.
func (r *redactor) Writer(w io.Writer) io.Writer {
	if r == nil {
		return w
	}
	return redactingWriter{r: r, w: w}
}

type redactingWriter struct {
	r *redactor
	w io.Writer
}

func (rw redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(rw.w, rw.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
