package contracttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// testJWT: an agent with [auth.jwt] answers, wherever the adapter runs it,
// a call carrying a token its key set verifies, and refuses one without a
// token and one signed with a key the set does not hold.
func testJWT(t *testing.T, h Harness) {
	issued, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &issued.PublicKey, KeyID: "contract-1", Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := append(h.Config("Contract JWT"), "\n[auth.jwt]\nissuer = \"https://idp.contract.test/\"\naudiences = [\"contract\"]\njwks = '''"+string(set)+"'''\n"...)
	rt := h.New(t)
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw})
	startHealthy(t, rt, a.ID)
	endpoint := a.Endpoint
	if h.Reach != nil {
		endpoint = h.Reach(t, a)
	}
	token := func(key *ecdsa.PrivateKey) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader(jose.HeaderKey("kid"), "contract-1"))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: "https://idp.contract.test/", Audience: jwt.Audience{"contract"},
			Subject: "contract", Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	ask := func(tok string) (string, error) {
		c := ctx(t)
		if tok != "" {
			c = a2aclient.AttachServiceParams(c, a2aclient.ServiceParams{"Authorization": {"Bearer " + tok}})
		}
		return a2acli.Ask(c, endpoint, a2acli.JSONRPC, "1.0", "with a token")
	}
	if got, err := ask(token(issued)); err != nil || got != "with a token" {
		t.Errorf("a call with a token of the issuer answered %q, %v; want the echo", got, err)
	}
	if _, err := ask(""); err == nil {
		t.Error("a call without a token was answered")
	}
	if _, err := ask(token(other)); err == nil {
		t.Error("a call with a token signed by a key the set does not hold was answered")
	}
}
