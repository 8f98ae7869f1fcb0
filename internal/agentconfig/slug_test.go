package agentconfig

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSlug(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Echo Agent (EU)", "echo-agent-eu"},
		{"  leading and trailing  ", "leading-and-trailing"},
		{"already-a-slug", "already-a-slug"},
		{"UPPER__case--dash", "upper-case-dash"},
		{"agent 2", "agent-2"},
		{"Café Agent", "cafe-agent"},
		{"Ångström", "angstrom"},
		{"Crème Brûlée Bot", "creme-brulee-bot"},
		{"Straße", "strasse"},
		{"ﬁnance Agent", "finance-agent"},
		{"İstanbul", "istanbul"},
		{"Echo ™ (EU)", "echo-eu"},
		{"Cafe\u0301 decomposed", "cafe-decomposed"},
		{"日本", ""},
		{"Agent 日本", "agent"},
		{strings.Repeat("ab-", 40), strings.TrimRight(strings.Repeat("ab-", 21), "-")},
	}
	for _, tt := range tests {
		if got := Slug(tt.name); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSlugIsItsOwnSlug keeps the rule every part of the runtime checks an
// id by: an id is a string that is its own slug.
func TestSlugIsItsOwnSlug(t *testing.T) {
	for _, name := range []string{"Café Agent", "Ångström", "Straße", strings.Repeat("x y ", 40), "a--b-"} {
		if id := Slug(name); Slug(id) != id {
			t.Errorf("Slug(Slug(%q)) = %q, not %q", name, Slug(id), id)
		}
	}
}

// TestFoldASCII holds fold's shortcut for ASCII to what the transformers
// make of every ASCII character, alone and among others.
func TestFoldASCII(t *testing.T) {
	var all strings.Builder
	for c := range utf8.RuneSelf {
		s := string(rune(c))
		all.WriteString(s)
		if got, want := fold(s), foldUnicode(s); got != want {
			t.Errorf("fold(%q) = %q, the transformers give %q", s, got, want)
		}
	}
	for _, s := range []string{all.String(), "Echo Agent (EU)", "Fleet Agent 42"} {
		if got, want := fold(s), foldUnicode(s); got != want {
			t.Errorf("fold(%q) = %q, the transformers give %q", s, got, want)
		}
	}
}

func TestLostLetters(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Café Agent", ""},
		{"Agent 日本", "日本"},
		{"Echo (EU) ™", ""},
	}
	for _, tt := range tests {
		if got := LostLetters(tt.name); got != tt.want {
			t.Errorf("LostLetters(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestIDOfName: the id a name gives, or why it gives none, as a config
// with that name and no [agent] id would be told.
func TestIDOfName(t *testing.T) {
	long := strings.Repeat("long agent name ", 5)
	tests := []struct{ name, want, wantErr string }{
		{name: "Echo Agent", want: "echo-agent"},
		{name: "Café Agent (EU)", want: "cafe-agent-eu"},
		{name: "9 Lives", want: "9-lives"},
		{name: strings.Repeat("a", MaxIDLength), want: strings.Repeat("a", MaxIDLength)},
		{name: "", wantErr: "agent.name is required"},
		{name: "   ", wantErr: "agent.name is required"},
		{name: "${NAME}", wantErr: "agent.name must be literal"},
		{name: "日本", wantErr: `agent.name "日本" has no letters or digits that can spell an agent id`},
		{name: long, wantErr: `gives an agent id of 79 characters, more than the 63 an id may have: set a shorter id in [agent], such as id = "long-agent-name-long-agent-name-long-agent-name-long-agent-name"`},
	}
	for _, tt := range tests {
		id, err := IDOfName(tt.name)
		switch {
		case tt.wantErr == "" && (err != nil || id != tt.want):
			t.Errorf("IDOfName(%q) = %q, %v; want %q", tt.name, id, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || id != ""):
			t.Errorf("IDOfName(%q) = %q, %v; want an error containing %q", tt.name, id, err, tt.wantErr)
		}
	}
}

func TestParseAgentID(t *testing.T) {
	long := strings.Repeat("Long Agent Name ", 5) // its slug has 79 characters
	tests := []struct {
		name     string
		config   string
		wantID   string
		wantKey  string
		wantLine int
		wantText string
	}{
		{name: "accents folded", config: "[agent]\nname = \"Café Agent\"\n", wantID: "cafe-agent"},
		{name: "explicit id", config: "[agent]\nname = \"Café Agent\"\nid = \"my-cafe\"\n", wantID: "my-cafe"},
		{name: "explicit id for a name of another script", config: "[agent]\nname = \"日本\"\nid = \"nihon\"\n", wantID: "nihon"},
		{name: "explicit id for a long name", config: "[agent]\nname = \"" + long + "\"\nid = \"long-agent\"\n", wantID: "long-agent"},
		{name: "explicit id of 63 characters", config: "[agent]\nname = \"a\"\nid = \"" + strings.Repeat("a", 63) + "\"\n",
			wantID: strings.Repeat("a", 63)},
		{name: "explicit id in an inline table", config: "agent = { name = \"a\", id = \"b1\" }\n", wantID: "b1"},
		{
			name: "only letters of another script", config: "[agent]\nname = \"日本\"\n",
			wantKey: "agent.name", wantLine: 2, wantText: `agent.name "日本" has no letters or digits that can spell an agent id`,
		},
		{
			name: "a name whose slug is too long", config: "[agent]\ndescription = \"d\"\nname = \"" + long + "\"\n",
			wantKey: "agent.name", wantLine: 3,
			wantText: `gives an agent id of 79 characters, more than the 63 an id may have: set a shorter id in [agent], such as id = "long-agent-name-long-agent-name-long-agent-name-long-agent-name"`,
		},
		{
			name: "upper-case id", config: "[agent]\nname = \"a\"\n\nid = \"My-Agent\"\n",
			wantKey: "agent.id", wantLine: 4,
			wantText: `agent.id "My-Agent" is not a valid agent id: use 1 to 63 lower-case letters (a-z), digits and single hyphens, starting with a letter and not ending with a hyphen, such as "my-agent"`,
		},
		{name: "id starting with a digit", config: "[agent]\nname = \"a\"\nid = \"9lives\"\n", wantKey: "agent.id", wantLine: 3, wantText: `"9lives" is not a valid agent id`},
		{name: "id ending with a hyphen", config: "[agent]\nname = \"a\"\nid = \"agent-\"\n", wantKey: "agent.id", wantLine: 3, wantText: `"agent-" is not a valid agent id`},
		{name: "id with two hyphens in a row", config: "[agent]\nname = \"a\"\nid = \"a--b\"\n", wantKey: "agent.id", wantLine: 3, wantText: `such as "a-b"`},
		{name: "id with an underscore", config: "[agent]\nname = \"a\"\nid = \"a_b\"\n", wantKey: "agent.id", wantLine: 3, wantText: `"a_b" is not a valid agent id`},
		{name: "id with accents", config: "[agent]\nname = \"a\"\nid = \"café\"\n", wantKey: "agent.id", wantLine: 3, wantText: `such as "cafe"`},
		{name: "id with a variable", config: "[agent]\nname = \"a\"\nid = \"${ID}\"\n", wantKey: "agent.id", wantLine: 3, wantText: `"${ID}" is not a valid agent id`},
		{
			name: "id of 64 characters", config: "[agent]\nname = \"a\"\nid = \"" + strings.Repeat("a", 64) + "\"\n",
			wantKey: "agent.id", wantLine: 3, wantText: "is not a valid agent id",
		},
		{name: "id in an inline table", config: "agent = { name = \"a\", id = \"B\" }\n", wantKey: "agent.id", wantLine: 1, wantText: `"B" is not a valid agent id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.config))
			if tt.wantText == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cfg.ID() != tt.wantID {
					t.Errorf("ID() = %q, want %q", cfg.ID(), tt.wantID)
				}
				return
			}
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Problems) != 1 {
				t.Fatalf("Parse() error = %v, want one problem", err)
			}
			p := cerr.Problems[0]
			if p.Key != tt.wantKey || p.Line != tt.wantLine || !strings.Contains(p.Message, tt.wantText) {
				t.Errorf("problem = %s at %q line %d, want %q at %q line %d", p.Message, p.Key, p.Line, tt.wantText, tt.wantKey, tt.wantLine)
			}
			if !strings.Contains(p.String(), "line ") {
				t.Errorf("problem %q names no line", p.String())
			}
			if tt.wantKey == "agent.name" && !strings.Contains(p.Message, "id in [agent]") && !strings.Contains(p.Message, "id = ") {
				t.Errorf("problem %q does not say to set [agent] id", p.Message)
			}
		})
	}
}
