package agenthost

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"

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
// asked for a token. Only the reference is quoted, never a token.
func checkBearerToken(written, expanded string) error {
	if expanded != "" || !agentconfig.HasReference(written) {
		return nil
	}
	vars := strings.Join(agentconfig.References([]byte(written)), ", ")
	return fmt.Errorf("[auth] bearer_token %q expands to an empty token, which would turn authentication off: "+
		"set %s to the token in the agent's environment, or remove bearer_token to serve without authentication", written, vars)
}

// requireBearer lets a request through only when it carries the token as
// "Authorization: Bearer <token>". Tokens are compared as sha256 digests in
// constant time, so neither their content nor their length leaks through
// timing.
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		given, ok := bearerCredentials(r.Header.Get("Authorization"))
		if !ok {
			rejectUnauthenticated(w, `Bearer realm="`+bearerRealm+`"`,
				"this agent requires an Authorization: Bearer token")
			return
		}
		got := sha256.Sum256([]byte(given))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			rejectUnauthenticated(w, `Bearer realm="`+bearerRealm+`", error="invalid_token"`,
				"the bearer token is not valid for this agent")
			return
		}
		next.ServeHTTP(w, r)
	})
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

type rpcError struct {
	Code    int                   `json:"code"`
	Message string                `json:"message"`
	Data    []*errordetails.Typed `json:"data,omitempty"`
}

type rpcErrorResponse struct {
	JSONRPC string   `json:"jsonrpc"`
	ID      any      `json:"id"`
	Error   rpcError `json:"error"`
}

// rejectUnauthenticated answers 401 with a challenge, and a JSON-RPC error
// body so clients that read only the body learn why. The request body is not
// read, so the id is null, as JSON-RPC 2.0 prescribes when it is unknown.
func rejectUnauthenticated(w http.ResponseWriter, challenge, message string) {
	w.Header().Set("WWW-Authenticate", challenge)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_ = json.NewEncoder(w).Encode(rpcErrorResponse{
		JSONRPC: "2.0",
		Error: rpcError{
			Code:    unauthenticatedCode,
			Message: message,
			Data: []*errordetails.Typed{
				errordetails.NewErrorInfo(a2a.ErrorReason(a2a.ErrUnauthenticated), a2a.ProtocolDomain, nil),
			},
		},
	})
}
