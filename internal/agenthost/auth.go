package agenthost

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// unauthenticatedCode is the JSON-RPC code the A2A Go SDK maps to
// a2a.ErrUnauthenticated; the specification leaves the code to the binding
// and the SDK's clients decode this one.
const unauthenticatedCode = -31401

// bearerRealm names the protection space in WWW-Authenticate challenges.
const bearerRealm = "a2a"

// checkBearerToken refuses a bearer token written as a variable reference
// that expanded to nothing: the host would then serve without
// authentication and the card advertise no security, though the config
// asked for a token.
func checkBearerToken(written, expanded string) error {
	return checkNotEmptied("[auth] bearer_token", written, expanded, "an empty token, which would turn authentication off",
		"the token", "remove bearer_token to serve without authentication")
}

// checkNotEmptied refuses a value written as a variable reference that
// expanded to nothing, saying what that would do and what to set instead.
// Only the reference is quoted, never a value.
func checkNotEmptied(key, written, expanded, emptied, wanted, otherwise string) error {
	if expanded != "" || !agentconfig.HasReference(written) {
		return nil
	}
	vars := strings.Join(agentconfig.References([]byte(written)), ", ")
	return fmt.Errorf("%s %q expands to %s: set %s to %s in the agent's environment, or %s", key, written, emptied, vars, wanted, otherwise)
}

// bearerAuth lets a request through only when it carries the token as
// "Authorization: Bearer <token>". Tokens are compared as sha256 digests in
// constant time, so neither their content nor their length leaks through
// timing.
type bearerAuth struct {
	want     [sha256.Size]byte
	identity string
}

func newBearerAuth(token string) *bearerAuth {
	sum := sha256.Sum256([]byte(token))
	// The identity names the credential without revealing it: tasks are
	// scoped to it, and it may appear in logs.
	return &bearerAuth{want: sum, identity: "bearer:" + hex.EncodeToString(sum[:8])}
}

// check returns the caller's identity, or the challenge and the problem
// to answer an unauthenticated request with.
func (a *bearerAuth) check(r *http.Request) (identity, challenge, problem string) {
	given, ok := bearerCredentials(r.Header.Get("Authorization"))
	if !ok {
		return "", `Bearer realm="` + bearerRealm + `"`, "this agent requires an Authorization: Bearer token"
	}
	got := sha256.Sum256([]byte(given))
	if subtle.ConstantTimeCompare(got[:], a.want[:]) != 1 {
		return "", `Bearer realm="` + bearerRealm + `", error="invalid_token"`, "the bearer token is not valid for this agent"
	}
	return a.identity, "", ""
}

// bearerCredentials returns the token of a Bearer Authorization header; the
// scheme name is case-insensitive (RFC 9110, section 11.1).
func bearerCredentials(header string) (string, bool) {
	scheme, token, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
