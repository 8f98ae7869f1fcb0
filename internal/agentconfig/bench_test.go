package agentconfig

import (
	"errors"
	"strings"
	"testing"
)

// BenchmarkParseLocatesManyProblems parses a config of the largest allowed
// size in which every line is a problem: locating them must not rescan the
// document for each one.
func BenchmarkParseLocatesManyProblems(b *testing.B) {
	raw := []byte("[agent]\nname = \"a\"\n" + strings.Repeat("[[skills]]\n", (MaxConfigBytes-20)/len("[[skills]]\n")))
	for b.Loop() {
		var cerr *Error
		if _, err := Parse(raw); err == nil || !errors.As(err, &cerr) || cerr.Problems[len(cerr.Problems)-1].Line == 0 {
			b.Fatalf("Parse() = %v, want located problems", err)
		}
	}
}
