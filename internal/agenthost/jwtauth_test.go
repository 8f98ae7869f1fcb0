package agenthost

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	testIssuer   = "https://idp.test.example/"
	testAudience = "a2a-agents"
)

// issuer is an identity provider the tests play: keys of its own, and
// tokens signed with them.
type issuer struct {
	t    *testing.T
	rsa  *rsa.PrivateKey
	ec   *ecdsa.PrivateKey
	next *rsa.PrivateKey // the key it rotates to
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	next, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &issuer{t: t, rsa: r, ec: e, next: next}
}

// jwks is the public key set holding the named keys.
func (i *issuer) jwks(names ...string) string {
	i.t.Helper()
	var set jose.JSONWebKeySet
	for _, n := range names {
		switch n {
		case "rsa-1":
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &i.rsa.PublicKey, KeyID: n, Algorithm: string(jose.RS256), Use: "sig"})
		case "ec-1":
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &i.ec.PublicKey, KeyID: n, Algorithm: string(jose.ES256), Use: "sig"})
		case "rsa-2":
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &i.next.PublicKey, KeyID: n, Algorithm: string(jose.RS256), Use: "sig"})
		}
	}
	data, err := json.Marshal(set)
	if err != nil {
		i.t.Fatal(err)
	}
	return string(data)
}

// claims are a valid token's claims for subject, changed by edit.
func validClaims(subject string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": testIssuer, "aud": []string{testAudience}, "sub": subject,
		"iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(),
		"scope": "agents:call other",
	}
}

// token signs claims with the named key.
func (i *issuer) token(kid string, claims map[string]any) string {
	i.t.Helper()
	var key jose.SigningKey
	switch kid {
	case "rsa-1", "unknown-kid":
		key = jose.SigningKey{Algorithm: jose.RS256, Key: i.rsa}
	case "rsa-2":
		key = jose.SigningKey{Algorithm: jose.RS256, Key: i.next}
	case "ec-1":
		key = jose.SigningKey{Algorithm: jose.ES256, Key: i.ec}
	}
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), kid))
	if err != nil {
		i.t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		i.t.Fatal(err)
	}
	return tok
}

// unsigned is a token with alg "none": it carries claims and no signature.
func unsigned(claims map[string]any) string {
	header, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": "rsa-1"})
	payload, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(header) + "." + enc(payload) + "."
}

// confused is a token signed with HS256, keyed with the bytes of the
// issuer's public key, which a verifier that lets the token choose the
// algorithm would accept.
func (i *issuer) confused(claims map[string]any) string {
	i.t.Helper()
	pub, err := x509.MarshalPKIXPublicKey(&i.rsa.PublicKey)
	if err != nil {
		i.t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader(jose.HeaderKey("kid"), "rsa-1"))
	if err != nil {
		i.t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		i.t.Fatal(err)
	}
	return tok
}

func jwtConfig(keys string, extra string) string {
	return echoConfig + "\n[auth.jwt]\nissuer = \"" + testIssuer + "\"\naudiences = [\"" + testAudience + "\"]\n" + keys + extra
}

func inlineKeys(set string) string { return "jwks = '''" + set + "'''\n" }

func with(claims map[string]any, edit func(map[string]any)) map[string]any {
	edit(claims)
	return claims
}

// TestJWTAuth: a token is accepted only when an accepted algorithm and a
// key of the issuer's set signed it, for this issuer and audience,
// unexpired, naming a subject, with the required scopes and claims; each
// refusal says which, answered before the body is read.
func TestJWTAuth(t *testing.T) {
	idp := newIssuer(t)
	cfg := jwtConfig(inlineKeys(idp.jwks("rsa-1", "ec-1")),
		"algorithms = [\"RS256\", \"ES256\"]\nrequired_scopes = [\"agents:call\"]\n[auth.jwt.required_claims]\ntenant = \"blue\"\n")
	h := startInProcess(t, parseConfig(t, cfg), Options{})
	blue := func(sub string) map[string]any {
		return with(validClaims(sub), func(c map[string]any) { c["tenant"] = "blue" })
	}
	hour := time.Hour
	cases := []struct {
		name, token string
		status      int
		problem     string
	}{
		{"RS256", idp.token("rsa-1", blue("alice")), http.StatusOK, ""},
		{"ES256", idp.token("ec-1", blue("alice")), http.StatusOK, ""},
		{"scopes as scp list", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) {
			delete(c, "scope")
			c["scp"] = []string{"agents:call"}
		})), http.StatusOK, ""},
		{"tenant among a list", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["tenant"] = []string{"red", "blue"} })), http.StatusOK, ""},
		{"expired", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["exp"] = time.Now().Add(-hour).Unix() })), http.StatusUnauthorized, "expired"},
		{"not valid yet", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["nbf"] = time.Now().Add(hour).Unix() })), http.StatusUnauthorized, "not valid yet"},
		{"no expiry", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { delete(c, "exp") })), http.StatusUnauthorized, "no expiry"},
		{"wrong audience", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["aud"] = "someone-else" })), http.StatusUnauthorized, "not meant for this agent"},
		{"wrong issuer", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["iss"] = "https://evil.example/" })), http.StatusUnauthorized, "another issuer"},
		{"no subject", idp.token("rsa-1", with(blue(""), func(c map[string]any) { delete(c, "sub") })), http.StatusUnauthorized, "no subject"},
		{"alg none", unsigned(blue("alice")), http.StatusUnauthorized, "not a JWT signed with RS256 or ES256"},
		{"HS256 keyed with the public key", idp.confused(blue("alice")), http.StatusUnauthorized, "not a JWT signed with"},
		{"key not in the set", idp.token("rsa-2", blue("alice")), http.StatusUnauthorized, "does not verify"},
		{"kid of another key", idp.token("unknown-kid", blue("alice")), http.StatusUnauthorized, "does not verify"},
		{"not a JWT", "not.a.jwt", http.StatusUnauthorized, "not a JWT"},
		{"missing scope", idp.token("rsa-1", with(blue("alice"), func(c map[string]any) { c["scope"] = "other" })), http.StatusForbidden, "lacks the scopes agents:call"},
		{"other tenant", idp.token("rsa-1", validClaims("alice")), http.StatusForbidden, `claim "tenant"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), http.Header{"Authorization": {"Bearer " + tc.token}})
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if tc.status == http.StatusOK {
				return
			}
			code := unauthenticatedCode
			if tc.status == http.StatusForbidden {
				code = unauthorizedCode
				if got := res.header.Get("WWW-Authenticate"); !strings.Contains(got, `error="insufficient_scope"`) {
					t.Errorf("WWW-Authenticate %q, want insufficient_scope", got)
				}
			} else if got := res.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer realm="a2a"`) {
				t.Errorf("WWW-Authenticate %q, want a Bearer challenge", got)
			}
			rpc := wantRPCError(t, res, code)
			if !strings.Contains(rpc.Error.Message, tc.problem) {
				t.Errorf("refusal %q does not say %q", rpc.Error.Message, tc.problem)
			}
			if strings.Contains(string(res.body), tc.token) {
				t.Error("the refusal quotes the token")
			}
		})
	}

	t.Run("no token", func(t *testing.T) {
		res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), nil)
		rpc := wantRPCError(t, res, unauthenticatedCode)
		if !strings.Contains(rpc.Error.Message, testIssuer) {
			t.Errorf("refusal %q does not name the issuer to get a token from", rpc.Error.Message)
		}
	})

	t.Run("tasks belong to the subject", func(t *testing.T) {
		as := func(sub string) http.Header {
			return http.Header{"Authorization": {"Bearer " + idp.token("rsa-1", blue(sub))}}
		}
		res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("alice's"), as("alice"))
		var rpc rpcResponse
		var sr a2a.StreamResponse
		if json.Unmarshal(res.body, &rpc) != nil || rpc.Error != nil || json.Unmarshal(rpc.Result, &sr) != nil {
			t.Fatalf("SendMessage answered %s", res.body)
		}
		task := sr.Event.(*a2a.Task)
		if res := postRPC(t, h.Endpoint(), "GetTask", map[string]any{"id": task.ID}, as("alice")); res.status != http.StatusOK || strings.Contains(string(res.body), `"error"`) {
			t.Errorf("the subject that made the task cannot read it: %s", res.body)
		}
		// Another subject sees none of it.
		wantRPCError(t, postRPC(t, h.Endpoint(), "GetTask", map[string]any{"id": task.ID}, as("bob")), -32001)
	})

	t.Run("the card declares the scheme", func(t *testing.T) {
		var doc map[string]any
		if err := json.Unmarshal(httpGet(t, h.CardURL()).body, &doc); err != nil {
			t.Fatal(err)
		}
		scheme, _ := json.Marshal(doc["securitySchemes"])
		for _, want := range []string{`"jwt"`, `"bearerFormat":"JWT"`, `"scheme":"Bearer"`, testIssuer, testAudience, "agents:call"} {
			if !strings.Contains(string(scheme), want) {
				t.Errorf("securitySchemes %s do not hold %s", scheme, want)
			}
		}
	})
}

// TestJWTKeyRotation: keys come from the issuer's URL; a token signed with
// a key the issuer added since is taken once the set is fetched again,
// which a token naming an unknown key id does (at most every
// jwksRefetchFloor), and a key the issuer dropped is refused after that.
func TestJWTKeyRotation(t *testing.T) {
	floor := jwksRefetchFloor
	jwksRefetchFloor = 0
	t.Cleanup(func() { jwksRefetchFloor = floor })
	idp := newIssuer(t)
	var mu sync.Mutex
	served, fetches := idp.jwks("rsa-1"), 0
	keys := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fetches++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(served))
	}))
	t.Cleanup(keys.Close)
	h := startInProcess(t, parseConfig(t, jwtConfig("jwks_url = \""+keys.URL+"/jwks.json\"\n", "")), Options{})
	call := func(kid string) int {
		return postRPC(t, h.Endpoint(), "SendMessage", sendParams("hi"), http.Header{"Authorization": {"Bearer " + idp.token(kid, validClaims("alice"))}}).status
	}
	if got := call("rsa-1"); got != http.StatusOK {
		t.Fatalf("token of the first key: %d", got)
	}
	mu.Lock()
	served = idp.jwks("rsa-2")
	mu.Unlock()
	if got := call("rsa-2"); got != http.StatusOK {
		t.Errorf("token of the key the issuer rotated to: %d, want 200", got)
	}
	if got := call("rsa-1"); got != http.StatusUnauthorized {
		t.Errorf("token of the key the issuer dropped: %d, want 401", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if fetches < 2 {
		t.Errorf("the key set was fetched %d times, want a fetch at start and one for the new key", fetches)
	}
}

// TestJWTKeySetUnavailable: a key set URL that does not serve a key set
// fails the start, naming the URL and what it answered.
func TestJWTKeySetUnavailable(t *testing.T) {
	keys := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(keys.Close)
	_, err := Start(ctxFor(t), parseConfig(t, jwtConfig("jwks_url = \""+keys.URL+"/jwks.json\"\n", "")), Options{})
	if err == nil || !strings.Contains(err.Error(), keys.URL+"/jwks.json answered 404") {
		t.Fatalf("Start = %v, want an error naming the URL and its 404", err)
	}
	var cerr *configError
	if errors.As(err, &cerr) {
		t.Errorf("an issuer that does not answer is reported as a config error: %v", err)
	}
}
