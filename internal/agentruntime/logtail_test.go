package agentruntime

import (
	"slices"
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		limit  int
		n      int
		want   []string
	}{
		{"fits", []string{"a\nb\n", "c\n"}, 100, 2, []string{"b", "c"}},
		{"front dropped, cut line left out", []string{"first line\n", "second\n", "third\n"}, 12, 5, []string{"third"}},
		{"one write beyond the limit", []string{strings.Repeat("x", 50) + "\nend\n"}, 10, 5, []string{"end"}},
		{"no line break at all", []string{strings.Repeat("\x00", 5000)}, 8, 5, []string{strings.Repeat("\x00", 8)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewTailBuffer(tt.limit)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if len(b.buf) > tt.limit {
				t.Errorf("kept %d bytes, limit %d", len(b.buf), tt.limit)
			}
			if got := b.Lines(tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("Lines(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\twith tab", "plain text\twith tab"},
		{"nul\x00\x00\x00run", "nul\uFFFDrun"},
		{"bell\a and \x1b[31mescape", "bell\uFFFD and \uFFFD[31mescape"},
		{"bad \xff\xfe utf8", "bad \uFFFD utf8"},
		{"ünïcödé ✓", "ünïcödé ✓"},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
