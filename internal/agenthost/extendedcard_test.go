package agenthost

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/cardschema"
)

// TestExtendedCard: a skill marked extended is left out of the public card,
// which then declares the extended card; an authenticated caller gets the
// card with every skill from GetExtendedAgentCard on every binding, and a
// caller without a token is refused. A skill's scopes are declared as its
// security requirement for the jwt scheme.
func TestExtendedCard(t *testing.T) {
	idp := newIssuer(t)
	cfg := jwtConfig(inlineKeys(idp.jwks("ec-1")), "") + `
[[skills]]
id = "public-echo"

[[skills]]
id = "billing"
extended = true
scopes = ["billing:read"]
`
	h := startInProcess(t, parseConfig(t, cfg), Options{})
	token := idp.token("ec-1", validClaims("extended"))

	parsed, err := card.Parse(httpGet(t, h.CardURL()).body)
	if err != nil {
		t.Fatal(err)
	}
	public := parsed.Card
	if ids := skillIDs(public.Skills); !slices.Equal(ids, []string{"public-echo"}) || !public.Capabilities.ExtendedAgentCard {
		t.Errorf("public card lists skills %v with extendedAgentCard %v; want only public-echo, and the extended card declared", ids, public.Capabilities.ExtendedAgentCard)
	}

	t.Run("JSON-RPC", func(t *testing.T) {
		res := postRPC(t, h.Endpoint(), "GetExtendedAgentCard", map[string]any{}, http.Header{"Authorization": {"Bearer " + token}})
		var rpc rpcResponse
		if json.Unmarshal(res.body, &rpc) != nil || rpc.Error != nil {
			t.Fatalf("GetExtendedAgentCard answered %s", res.body)
		}
		wantExtended(t, rpc.Result)
		wantRPCError(t, postRPC(t, h.Endpoint(), "GetExtendedAgentCard", map[string]any{}, nil), unauthenticatedCode)
	})
	t.Run("HTTP+JSON", func(t *testing.T) {
		url := strings.TrimSuffix(h.Endpoint(), "/") + "/extendedAgentCard"
		v10 := http.Header{a2a.SvcParamVersion: {"1.0"}}
		res := do(t, http.MethodGet, url, http.Header{a2a.SvcParamVersion: {"1.0"}, "Authorization": {"Bearer " + token}}, nil)
		if res.status != http.StatusOK {
			t.Fatalf("GET extendedAgentCard: %d %s", res.status, res.body)
		}
		wantExtended(t, res.body)
		wantRESTRefusal(t, do(t, http.MethodGet, url, v10, nil), http.StatusUnauthorized, a2a.ErrUnauthenticated)
	})
	t.Run("gRPC", func(t *testing.T) {
		conn, err := grpc.NewClient(card.GRPCTarget(h.Endpoint()), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		client := a2apb.NewA2AServiceClient(conn)
		md := metadata.Pairs("a2a-version", "1.0", "authorization", "Bearer "+token)
		got, err := client.GetExtendedAgentCard(metadata.NewOutgoingContext(ctxFor(t), md), &a2apb.GetExtendedAgentCardRequest{})
		if err != nil {
			t.Fatalf("GetExtendedAgentCard: %v", err)
		}
		var ids []string
		for _, s := range got.GetSkills() {
			ids = append(ids, s.GetId())
		}
		if !slices.Equal(ids, []string{"public-echo", "billing"}) {
			t.Errorf("extended card over gRPC lists %v, want both skills", ids)
		}
		_, err = client.GetExtendedAgentCard(metadata.NewOutgoingContext(ctxFor(t), metadata.Pairs("a2a-version", "1.0")), &a2apb.GetExtendedAgentCardRequest{})
		wantGRPCStatus(t, err, codes.Unauthenticated, "requires an Authorization")
	})
}

// wantExtended checks the extended card as it travels: valid against the
// 1.0 schema, and read as strictly as the public one.
func wantExtended(t *testing.T, raw []byte) {
	t.Helper()
	cardschema.ValidateStrict10(t, raw)
	parsed, err := card.Parse(raw)
	if err != nil || len(parsed.Deviations) > 0 {
		t.Fatalf("the extended card is not a valid 1.0 card (%v, %v):\n%s", err, parsed.Deviations, raw)
	}
	c := parsed.Card
	if ids := skillIDs(c.Skills); !slices.Equal(ids, []string{"public-echo", "billing"}) {
		t.Errorf("extended card lists %v, want both skills", ids)
		return
	}
	req := c.Skills[1].SecurityRequirements
	if len(req) != 1 || !slices.Equal(req[0][card.JWTSchemeName], a2a.SecuritySchemeScopes{"billing:read"}) {
		t.Errorf("the billing skill's security requirements = %+v, want the jwt scheme with billing:read", req)
	}
}

func skillIDs(skills []a2a.AgentSkill) []string {
	ids := make([]string, len(skills))
	for i, s := range skills {
		ids[i] = s.ID
	}
	return ids
}
