//go:build linux

package local

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

func TestTailLines(t *testing.T) {
	dir := statedirtest.Open(t, t.TempDir())
	write := func(name, content string) string {
		if err := os.WriteFile(dir.Join(name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	// A log far larger than one read chunk, so the tail comes from its end
	// and the first line read is cut.
	var big strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&big, "line %05d %s\n", i, strings.Repeat("x", 20))
	}
	bigFile := write("big.log", big.String())
	x20 := strings.Repeat("x", 20)
	tests := []struct {
		name string
		path string
		n    int
		want []string
	}{
		{"missing file", "absent.log", 5, nil},
		{"empty file", write("empty.log", ""), 5, nil},
		{"fewer lines than asked", write("short.log", "a\nb\n"), 5, []string{"a", "b"}},
		{"all lines", write("all.log", "a\nb\nc\n"), 0, []string{"a", "b", "c"}},
		{"last line unterminated", write("partial.log", "a\nb\nc"), 2, []string{"b", "c"}},
		{"tail of a big file", bigFile, 3, []string{"line 19997 " + x20, "line 19998 " + x20, "line 19999 " + x20}},
		{"a line longer than the limit keeps its end", write("long.log", "a\n"+strings.Repeat("y", 1500)+"end\n"), 2,
			[]string{"a", strings.Repeat("y", 1021) + "end"}},
		{"lines beyond the budget are not read", write("longer.log", "a\n"+strings.Repeat("y", 5000)+"end\n"), 2,
			[]string{strings.Repeat("y", 1021) + "end"}},
		{"no line break in a log beyond the budget", write("nul.log", strings.Repeat("\x00", 100000)+"tail"), 1,
			[]string{strings.Repeat("\x00", 1020) + "tail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tailLines(t.Context(), dir, tt.path, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("tailLines(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
	all, err := tailLines(t.Context(), dir, bigFile, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 20000 || all[0] != "line 00000 "+x20 {
		t.Errorf("all lines of the big file: %d lines starting %q", len(all), all[0])
	}
}
