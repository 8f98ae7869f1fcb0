package provider

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// loggingRuntime is the in-memory adapter whose agents' logs hold lines.
type loggingRuntime struct {
	*memory.Runtime
	lines []string
}

func (r *loggingRuntime) Logs(context.Context, string, int) ([]string, error) { return r.lines, nil }

// TestLogTailBounded: whatever an agent wrote, the log tail of a failed
// start's diagnostic is printable and a few KiB at most.
func TestLogTailBounded(t *testing.T) {
	tests := map[string][]string{
		"NUL bytes":        {strings.Repeat("\x00", agentruntime.LogLineMax)},
		"long lines":       slicesOf(logTailLines, strings.Repeat("ä", agentruntime.LogLineMax/2)),
		"control bytes":    slicesOf(logTailLines, "\x1b[2J\a\x07 cleared"),
		"ordinary failure": {"listening", "error: port taken"},
	}
	for name, lines := range tests {
		t.Run(name, func(t *testing.T) {
			r := &agentResource{deps: &runtimeDeps{runtime: &loggingRuntime{Runtime: memory.New(), lines: lines}}}
			got := r.logTail(t.Context(), "x")
			if len(got) > logTailBytes+200 {
				t.Errorf("log tail is %d bytes, want at most about %d", len(got), logTailBytes)
			}
			for _, c := range got {
				if !unicode.IsPrint(c) && c != '\n' && c != '\t' && c != '\uFFFD' {
					t.Fatalf("log tail holds unprintable %q", c)
				}
			}
			if last := lines[len(lines)-1]; name == "ordinary failure" && !strings.Contains(got, last) {
				t.Errorf("log tail %q lost the last line %q", got, last)
			}
		})
	}
}

func slicesOf(n int, s string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
