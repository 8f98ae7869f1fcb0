package agenthost

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// unauthenticatedCode and unauthorizedCode are the JSON-RPC codes the A2A
// Go SDK maps to a2a.ErrUnauthenticated and a2a.ErrUnauthorized; the
// specification leaves the codes to the binding and the SDK's clients
// decode these.
const (
	unauthenticatedCode = -31401
	unauthorizedCode    = -31403
)

// authenticator tells who a call is from, or why it is refused.
type authenticator interface {
	check(r *http.Request) (authedCaller, *authRefusal)
}

// authedCaller is who a call is from: the scope its tasks belong to and, for a
// JWT, the scopes its token holds, which skills may require.
type authedCaller struct {
	scope  string
	scopes []string
}

// authRefusal is why a call is refused: the WWW-Authenticate challenge to
// answer with, and the problem, which names no credential. A forbidden
// caller proved who it is but may not call (RFC 6750's insufficient_scope).
type authRefusal struct {
	challenge, problem string
	forbidden          bool
}

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

// newAuthenticator is how the config asks callers to prove who they are;
// nil lets every caller in, all sharing one scope.
func newAuthenticator(ctx context.Context, cfg *agentconfig.Config) (authenticator, error) {
	switch {
	case cfg.Auth.JWT != nil:
		a, err := newJWTAuth(ctx, cfg.Auth.JWT)
		if err != nil {
			return nil, err
		}
		return a, nil
	case cfg.Auth.BearerToken != "":
		return newBearerAuth(cfg.Auth.BearerToken), nil
	default:
		return nil, nil
	}
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
func (a *bearerAuth) check(r *http.Request) (authedCaller, *authRefusal) {
	given, ok := bearerCredentials(r.Header.Get("Authorization"))
	if !ok {
		return authedCaller{}, &authRefusal{challenge: `Bearer realm="` + bearerRealm + `"`, problem: "this agent requires an Authorization: Bearer token"}
	}
	got := sha256.Sum256([]byte(given))
	if subtle.ConstantTimeCompare(got[:], a.want[:]) != 1 {
		return authedCaller{}, invalidToken("the bearer token is not valid for this agent")
	}
	return authedCaller{scope: a.identity}, nil
}

// invalidToken refuses a credential that is not one the agent accepts.
func invalidToken(problem string) *authRefusal {
	return &authRefusal{challenge: `Bearer realm="` + bearerRealm + `", error="invalid_token"`, problem: problem}
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
