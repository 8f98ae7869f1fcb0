package agentconfig

import "testing"

func TestSuggest(t *testing.T) {
	tests := []struct {
		name  string
		known []string
		want  string
	}{
		{"MY_API_KEY", []string{"OTHER", "MY_APIKEY"}, "MY_APIKEY"},
		{"MY_APIKEY", []string{"MY_API_KEY"}, "MY_API_KEY"},
		{"http-port", []string{"host", "http_port"}, "http_port"},
		{"Name", []string{"name"}, "name"},
		{"nmae", []string{"id", "name"}, "name"},                       //nolint:misspell // a typo on purpose: suggestions for typos are under test
		{"descripton", []string{"name", "description"}, "description"}, //nolint:misspell // a typo on purpose: suggestions for typos are under test
		{"API_KYE", []string{"API_KEY"}, "API_KEY"},
		{"advertized_ulr", []string{"advertised_url"}, "advertised_url"},
		{"agnet", []string{"agent", "auth"}, "agent"},
		// The nearest wins; among equally near ones, the first known.
		{"tag", []string{"tags", "tab"}, "tags"},
		{"imag", []string{"image", "images"}, "image"},
		// Nothing close: no suggestion rather than a wild one.
		{"colour", []string{"name", "id", "description", "version"}, ""},
		{"host", []string{"port", "pull"}, ""},
		{"SECRET", []string{"API_KEY", "TOKEN"}, ""},
		{"OPENAI_KEY", []string{"OPENAI_API_KEY"}, ""},
		{"x", nil, ""},
		// A name is no suggestion for itself.
		{"name", []string{"name"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Suggest(tt.name, tt.known); got != tt.want {
				t.Errorf("Suggest(%q, %q) = %q, want %q", tt.name, tt.known, got, tt.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0},
		{"abc", "abd", 1}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"ab", "abc", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
