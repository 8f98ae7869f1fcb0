package agenthost

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

const guardedConfig = echoConfig + `
[auth]
bearer_token = "${AGENT_TOKEN}"
`

func TestBearerTokenGuardsJSONRPC(t *testing.T) {
	const token = "s3cret-t0ken"
	t.Setenv("AGENT_TOKEN", token)
	log := &syncBuffer{}
	h := startInProcess(t, parseConfig(t, guardedConfig), Options{Log: log})

	cases := []struct {
		name          string
		authorization string
		wantStatus    int
		wantChallenge string
	}{
		{"no token", "", http.StatusUnauthorized, `Bearer realm="a2a"`},
		{"wrong token", "Bearer not-the-token", http.StatusUnauthorized, `Bearer realm="a2a", error="invalid_token"`},
		{"token prefix", "Bearer " + token[:4], http.StatusUnauthorized, `Bearer realm="a2a", error="invalid_token"`},
		{"other scheme", "Basic " + token, http.StatusUnauthorized, `Bearer realm="a2a"`},
		{"right token", "Bearer " + token, http.StatusOK, ""},
		{"scheme is case-insensitive", "bearer " + token, http.StatusOK, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{}
			if tc.authorization != "" {
				header.Set("Authorization", tc.authorization)
			}
			res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("knock knock"), header)
			body := res.body
			if res.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", res.status, tc.wantStatus, body)
			}
			if got := res.header.Get("WWW-Authenticate"); got != tc.wantChallenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tc.wantChallenge)
			}
			var rpc rpcResponse
			if err := json.Unmarshal(body, &rpc); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if tc.wantStatus == http.StatusOK {
				if rpc.Error != nil || !strings.Contains(string(rpc.Result), "knock knock") {
					t.Errorf("authorised call answered %s, want the echo", body)
				}
				return
			}
			if rpc.Error == nil || rpc.Error.Code != unauthenticatedCode {
				t.Fatalf("body = %s, want JSON-RPC error %d", body, unauthenticatedCode)
			}
			if len(rpc.Error.Data) == 0 || rpc.Error.Data[0]["reason"] != "UNAUTHENTICATED" {
				t.Errorf("error data = %v, want an ErrorInfo with reason UNAUTHENTICATED", rpc.Error.Data)
			}
		})
	}

	t.Run("card stays public", func(t *testing.T) {
		if status := httpGet(t, h.CardURL()).status; status != http.StatusOK {
			t.Errorf("card without a token: status %d, want 200", status)
		}
	})

	t.Run("SDK client with the token", func(t *testing.T) {
		// The SDK's own card parser cannot read security requirements in
		// the proto's JSON form ({"list": [...]}) that the card uses, so
		// the card is read with internal/card's parser.
		client, agentCard := newClient(t, h.Endpoint(), func(raw []byte) (*a2a.AgentCard, error) {
			parsed, err := card.Parse(raw)
			if err != nil {
				return nil, err
			}
			return parsed.Card, nil
		})
		if len(agentCard.SecurityRequirements) == 0 {
			t.Errorf("card of a token-guarded agent declares no security requirement")
		}
		ctx := a2aclient.AttachServiceParams(ctxFor(t), a2aclient.ServiceParams{"Authorization": {"Bearer " + token}})
		res, err := client.SendMessage(ctx, userText("with token"))
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		if resultText(res) != "with token" {
			t.Errorf("reply = %#v, want the echo", res)
		}
		if _, err := client.SendMessage(ctxFor(t), userText("without token")); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("SendMessage without a token: err = %v, want a 401", err)
		}
	})

	t.Run("log carries no token or message text", func(t *testing.T) {
		out := log.String()
		for _, secret := range []string{token, "knock knock", "with token"} {
			if strings.Contains(out, secret) {
				t.Errorf("log contains %q:\n%s", secret, out)
			}
		}
		if !strings.Contains(out, "status=401") || !strings.Contains(out, "rpc=SendMessage status=200") {
			t.Errorf("log lacks request lines for rejected and accepted calls:\n%s", out)
		}
	})
}

func TestBearerCredentials(t *testing.T) {
	cases := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"Bearer  abc ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"", "", false},
		{"abc", "", false},
	}
	for _, tc := range cases {
		token, ok := bearerCredentials(tc.header)
		if token != tc.token || ok != tc.ok {
			t.Errorf("bearerCredentials(%q) = %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
	}
}
