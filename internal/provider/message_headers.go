package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// literalCredentialHeaders refuses a2a_message headers that carry a
// credential written literally. An action's arguments cannot be marked
// sensitive, so Terraform prints them in `plan -invoke` and in the apply
// that sends them. Terraform validates a configuration with every input
// variable unknown, so a header value known then comes from the
// configuration's text (a literal, a local or a function of literals),
// while one taken from a sensitive variable is unknown and passes, and is
// shown as sensitive.
type literalCredentialHeaders struct{}

func (literalCredentialHeaders) Description(context.Context) string {
	return "credential headers must not be written literally"
}

func (v literalCredentialHeaders) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (literalCredentialHeaders) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for name, value := range req.ConfigValue.Elements() {
		s, ok := value.(types.String)
		if !ok || s.IsUnknown() || s.IsNull() || !credentialHeader(name) {
			continue
		}
		resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(name), "Credential written literally",
			fmt.Sprintf("The %s header holds a credential written in the configuration itself. An action's arguments "+
				"cannot be sensitive, so Terraform would print it in terraform plan -invoke and in the apply that sends "+
				"the message. Pass it through a sensitive variable instead: declare variable \"agent_token\" { "+
				"sensitive = true }, set it with TF_VAR_agent_token, and write %s = \"Bearer ${var.agent_token}\".", name, name))
	}
}

// credentialHeader reports whether a header's name says it carries a
// credential: the standard ones, and any named for a token, a key of an
// API, a secret, a password, a session or an authentication.
func credentialHeader(name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, word := range []string{"auth", "token", "secret", "password", "passwd", "session", "credential", "api-key", "apikey", "api_key", "access-key"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}
