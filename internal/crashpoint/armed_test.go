//go:build crashpoint

package crashpoint

import "testing"

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		name string
		n    int64
	}{{"a-b-c", "a-b-c", 1}, {"a-b-c:3", "a-b-c", 3}, {"a:0", "a", 1}, {"a:x", "a", 1}, {"", "", 1}} {
		if name, n := parse(tt.in); name != tt.name || n != tt.n {
			t.Errorf("parse(%q) = %q, %d; want %q, %d", tt.in, name, n, tt.name, tt.n)
		}
	}
}
