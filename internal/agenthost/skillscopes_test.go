package agenthost

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/cardschema"
)

// TestSkillScopes: a message that names a skill under the card's skill
// extension is served only when the token holds that skill's scopes; one
// that names none, when the token holds some skill's scopes; a skill the
// agent lacks, or a name that is no string, is invalid params. Alike on
// every binding, streaming too; the card declares the extension.
func TestSkillScopes(t *testing.T) {
	idp := newIssuer(t)
	cfg := jwtConfig(inlineKeys(idp.jwks("ec-1")), "") + `
[[skills]]
id = "notes-read"
scopes = ["notes:read"]

[[skills]]
id = "notes-write"
scopes = ["notes:write", "notes:read"]
`
	h := startInProcess(t, parseConfig(t, cfg), Options{})
	tokenWith := func(scope string) string {
		return idp.token("ec-1", with(validClaims("skills"), func(c map[string]any) { c["scope"] = scope }))
	}
	reader, writer, neither := tokenWith("notes:read"), tokenWith("notes:read notes:write"), tokenWith("agents:call")

	raw := httpGet(t, h.CardURL()).body
	cardschema.ValidateStrict10(t, raw)
	var doc struct {
		Capabilities struct {
			Extensions []struct{ URI string } `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	declared := false
	for _, e := range doc.Capabilities.Extensions {
		declared = declared || e.URI == card.SkillExtensionURI
	}
	if !declared {
		t.Errorf("the card does not declare the skill extension %s:\n%s", card.SkillExtensionURI, raw)
	}

	naming := func(skill any) *a2a.SendMessageRequest {
		req := userText("for a skill")
		if skill != nil {
			req.Message.Metadata = map[string]any{card.SkillExtensionURI: skill}
		}
		return req
	}
	cases := []struct {
		name    string
		token   string
		skill   any
		want    error // nil: served
		problem string
	}{
		{"the skill's scopes", reader, "notes-read", nil, ""},
		{"every scope of a skill needing two", writer, "notes-write", nil, ""},
		{"one of a skill's two scopes", reader, "notes-write", a2a.ErrUnauthorized, `lacks the scopes notes:write the skill "notes-write" requires`},
		{"no skill named, scopes of one", reader, nil, nil, ""},
		{"no skill named, scopes of none", neither, nil, a2a.ErrUnauthorized, "none of this agent's skills"},
		{"a skill the agent lacks", writer, "notes-delete", a2a.ErrInvalidParams, `"notes-delete", which this agent does not have`},
		{"a name that is no string", writer, 42, a2a.ErrInvalidParams, "must be a skill's id, a string"},
	}
	for _, iface := range servedInterfaces(t, h) {
		if iface.ProtocolVersion != a2a.Version {
			continue
		}
		client := interfaceClient(t, iface)
		t.Run(ifaceName(iface), func(t *testing.T) {
			for _, tc := range cases {
				_, err := client.SendMessage(withToken(t, tc.token), naming(tc.skill))
				wantSkillAnswer(t, tc.name, err, tc.want, tc.problem)
			}
			if iface.ProtocolBinding == a2a.TransportProtocolJSONRPC {
				// The SDK's JSON-RPC client ends a stream answered with a
				// plain error response without reporting it, so the
				// answer is read as sent.
				params := sendParams("for a skill")
				params["message"].(map[string]any)["metadata"] = map[string]any{card.SkillExtensionURI: "notes-write"}
				res := postRPC(t, h.Endpoint(), "SendStreamingMessage", params, http.Header{"Authorization": {"Bearer " + reader}})
				if rpc := wantRPCError(t, res, unauthorizedCode); !strings.Contains(rpc.Error.Message, "notes:write") {
					t.Errorf("streamed: refusal %q does not name the scope notes:write", rpc.Error.Message)
				}
				return
			}
			var streamErr error
			for _, err := range client.SendStreamingMessage(withToken(t, reader), naming("notes-write")) {
				if err != nil {
					streamErr = err
					break
				}
			}
			wantSkillAnswer(t, "streamed, one of a skill's two scopes", streamErr, a2a.ErrUnauthorized, "notes:write")
		})
	}
}

func wantSkillAnswer(t *testing.T, name string, err, want error, problem string) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("%s: refused with %v, want served", name, err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("%s: answered %v, want %v", name, err, want)
	case want != nil && !strings.Contains(err.Error(), problem):
		t.Errorf("%s: refusal %q does not say %q", name, err, problem)
	}
}
