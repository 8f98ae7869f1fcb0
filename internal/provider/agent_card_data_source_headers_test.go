package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccAgentCardDataSource_headersFromEnv sends a credential read from
// the provider's environment and proves it reached the agent but not
// Terraform state; an unset variable fails the read, naming it.
func TestAccAgentCardDataSource_headersFromEnv(t *testing.T) {
	const secret = "from-env-s3cret-7f3a"
	acc := newAccTest(t)
	srv := newCardServer(t, false, func(w http.ResponseWriter, r *http.Request, attempt int32) {
		if r.Header.Get("Authorization") != "Bearer "+secret || r.Header.Get("X-Tenant") != "acme" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		serveJSON(card10)(w, r, attempt)
	})
	t.Setenv("A2A_TEST_CARD_AUTHORIZATION", "Bearer "+secret)
	config := func(variable string) string {
		return acc.provider() + fmt.Sprintf("data \"a2a_agent_card\" \"test\" {\n url = %q\n"+
			" request_headers = { X-Tenant = \"acme\" }\n"+
			" request_headers_from_env = { Authorization = %q }\n}\n", srv.URL, variable)
	}
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("A2A_TEST_CARD_AUTHORIZATION"),
				Check: resource.ComposeAggregateTestCheckFunc(
					cardCheck("name", "Planner"),
					resource.TestCheckResourceAttr("data.a2a_agent_card.test", "request_headers_from_env.Authorization", "A2A_TEST_CARD_AUTHORIZATION"),
					acc.checkNotPersisted(secret),
				),
			},
			{
				Config:      config("A2A_TEST_CARD_UNSET"),
				ExpectError: regexp.MustCompile(`(?s)Environment variable not set.*Header Authorization is to be read from\s+the\s+environment\s+variable\s+A2A_TEST_CARD_UNSET`),
			},
		},
	})
}

func TestAccAgentCardDataSource_headerInBothMaps(t *testing.T) {
	isolateProviderState(t)
	runCardStep(t, "data \"a2a_agent_card\" \"test\" {\n url = \"http://127.0.0.1:1\"\n"+
		" request_headers = { authorization = \"x\" }\n request_headers_from_env = { Authorization = \"TOKEN\" }\n}\n",
		`(?s)Header set twice.*Header Authorization is in request_headers \(as authorization\)`, nil)
}
