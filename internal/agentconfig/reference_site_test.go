package agentconfig

import (
	"reflect"
	"testing"
)

func TestFirstReferences(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   map[string]ReferenceSite
	}{
		{"none", "[agent]\nname = \"a\"\n", map[string]ReferenceSite{}},
		{"in a value", "[agent]\nname = \"a\"\ndescription = \"hi ${GREETING}\"\n",
			map[string]ReferenceSite{"GREETING": {Line: 3, Column: 19}}},
		{"first of several", "a = \"${X}\"\nb = \"${X:-y}\"\n", map[string]ReferenceSite{"X": {Line: 1, Column: 6}}},
		{"in a comment", "[agent]\nname = \"a\" # was ${OLD_NAME}\n",
			map[string]ReferenceSite{"OLD_NAME": {Line: 2, Column: 18, InComment: true}}},
		{"a hash inside a string is no comment", "a = \"#${X}\" # ${Y}\n",
			map[string]ReferenceSite{"X": {Line: 1, Column: 7}, "Y": {Line: 1, Column: 15, InComment: true}}},
		{"a hash inside a literal string is no comment", "a = '#${X}'\n", map[string]ReferenceSite{"X": {Line: 1, Column: 7}}},
		{"an escaped quote does not end a string", `a = "\"# ${X}"` + "\n", map[string]ReferenceSite{"X": {Line: 1, Column: 10}}},
		{"multi-line strings", "a = \"\"\"\n# ${X}\n\"\"\"\nb = '''\n# ${Y}\n'''\n# ${Z}\n",
			map[string]ReferenceSite{"X": {Line: 2, Column: 3}, "Y": {Line: 5, Column: 3}, "Z": {Line: 7, Column: 3, InComment: true}}},
		{"an unterminated string ends with its line", "a = \"open\n# ${X}\n",
			map[string]ReferenceSite{"X": {Line: 2, Column: 3, InComment: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstReferences([]byte(tt.config)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FirstReferences() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEscapedReferences(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   []EscapedReference
	}{
		{"none", "a = \"${X}\"\n", nil},
		{"each one, at its first $", "[agent]\nname = \"a\"\ndescription = \"$${GREETING} and $${X:-y}\"\n# $${OLD}\n",
			[]EscapedReference{
				{Written: "$${GREETING}", Site: ReferenceSite{Line: 3, Column: 16}},
				{Written: "$${X:-y}", Site: ReferenceSite{Line: 3, Column: 33}},
				{Written: "$${OLD}", Site: ReferenceSite{Line: 4, Column: 3, InComment: true}},
			}},
		{"a $ that escapes nothing", "a = \"$$ ${X}\"\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapedReferences([]byte(tt.config)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("EscapedReferences() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReferenceSiteString(t *testing.T) {
	for site, want := range map[ReferenceSite]string{
		{Line: 3, Column: 7}:                  "agent config line 3, column 7",
		{Line: 1, Column: 2, InComment: true}: "agent config line 1, column 2, in a comment",
	} {
		if got := site.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
