package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccAgentCardDataSource_headerEnvAllowlist sets the provider block's
// card_header_env_allowlist, as an operator would to keep the data sources
// of the modules they use from sending the environment's credentials
// anywhere: a variable it names reaches an origin it lists, and any other
// variable or origin fails the read before a single request is sent.
func TestAccAgentCardDataSource_headerEnvAllowlist(t *testing.T) {
	const secret = "allowlisted-s3cret-91c4"
	t.Setenv("A2A_TEST_CARD_TOKEN", "Bearer "+secret)
	tests := []struct {
		name string
		// allowlist is the attribute's value, given the server's origin.
		allowlist func(origin string) string
		// variable is what request_headers_from_env names.
		variable    string
		expectError string
	}{
		{"a variable it names, to an origin it lists", tokenTo("%s"), "A2A_TEST_CARD_TOKEN", ""},
		{"the origin written with a trailing slash", tokenTo("%s/"), "A2A_TEST_CARD_TOKEN", ""},
		{"a variable it does not name", tokenTo("%s"), "HOME",
			`(?s)Environment variable not allowed.*Header Authorization is to be read from\s+the\s+environment\s+variable\s+HOME.*card_header_env_allowlist`},
		{"an origin it does not list", tokenTo("https://agents.example.com"), "A2A_TEST_CARD_TOKEN",
			`(?s)Origin not allowed.*A2A_TEST_CARD_TOKEN.*https://agents.example.com:443,?\s+not\s+to\s+http://127.0.0.1:\d+`},
		{"empty", func(string) string { return "{}" }, "A2A_TEST_CARD_TOKEN", `(?s)Environment variable not allowed.*A2A_TEST_CARD_TOKEN`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccTest(t)
			srv := newCardServer(t, false, func(w http.ResponseWriter, r *http.Request, attempt int32) {
				if r.Header.Get("Authorization") != "Bearer "+secret {
					http.Error(w, "who are you", http.StatusUnauthorized)
					return
				}
				serveJSON(card10)(w, r, attempt)
			})
			config := fmt.Sprintf("provider \"a2a\" {\n  state_dir = %q\n  card_header_env_allowlist = %s\n}\n", acc.stateDir, tt.allowlist(srv.URL)) +
				fmt.Sprintf("data \"a2a_agent_card\" \"test\" {\n  url = %q\n  request_headers_from_env = { Authorization = %q }\n}\n", srv.URL, tt.variable)
			step := resource.TestStep{Config: config}
			if tt.expectError == "" {
				step.Check = resource.ComposeAggregateTestCheckFunc(cardCheck("name", "Planner"), acc.checkNotPersisted(secret))
			} else {
				step.ExpectError = regexp.MustCompile(tt.expectError)
			}
			unitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: []resource.TestStep{step}})
			if n := srv.requests.Load(); tt.expectError != "" && n != 0 {
				t.Errorf("the server got %d requests from a read the allowlist refuses, want none", n)
			}
		})
	}
}

// tokenTo is an allowlist that lets A2A_TEST_CARD_TOKEN go to origin, in
// which any %s is the server's origin.
func tokenTo(origin string) func(string) string {
	return func(server string) string {
		return fmt.Sprintf("{ A2A_TEST_CARD_TOKEN = [%q] }", strings.ReplaceAll(origin, "%s", server))
	}
}

// TestAccProvider_headerEnvAllowlistValidation refuses, at plan, what is
// not an allowlist of variables and origins.
func TestAccProvider_headerEnvAllowlistValidation(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"a path", `{ TOKEN = ["https://agents.example.com/cards"] }`, `(?s)Invalid origin.*"https://agents.example.com/cards" must be an origin`},
		{"not http", `{ TOKEN = ["ftp://agents.example.com"] }`, `(?s)Invalid origin.*must be an origin`},
		{"no host", `{ TOKEN = ["https://"] }`, `(?s)Invalid origin`},
		{"a user", `{ TOKEN = ["https://me@agents.example.com"] }`, `(?s)Invalid origin`},
		{"not a variable name", `{ "1TOKEN" = ["https://agents.example.com"] }`, `(?s)Invalid environment variable name.*"1TOKEN"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "provider \"a2a\" {\n  state_dir = \"" + t.TempDir() + "\"\n  card_header_env_allowlist = " + tt.value + "\n}\n" + unusedResource,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}

func TestOriginOf(t *testing.T) {
	tests := map[string]string{
		"https://Agents.Example.com":         "https://agents.example.com:443",
		"https://agents.example.com:443/x":   "https://agents.example.com:443",
		"HTTP://agents.example.com":          "http://agents.example.com:80",
		"http://127.0.0.1:8080/.well-known/": "http://127.0.0.1:8080",
		"http://[::1]:9000":                  "http://[::1]:9000",
	}
	for raw, want := range tests {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := originOf(u); got != want {
			t.Errorf("originOf(%s) = %s, want %s", raw, got, want)
		}
	}
	for _, ok := range []string{"https://agents.example.com", "http://127.0.0.1:8080/", "https://[::1]:8443"} {
		resp := &validator.StringResponse{}
		originValidator().ValidateString(context.Background(), validator.StringRequest{ConfigValue: types.StringValue(ok)}, resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("origin %s refused: %v", ok, resp.Diagnostics)
		}
	}
}
