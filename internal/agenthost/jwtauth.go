package agenthost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// Bounds of a key set fetch: it runs at start, and on the path of a call
// that names a key the agent does not have yet.
const (
	jwksFetchTimeout = 5 * time.Second
	maxJWKSBytes     = 1 << 20
)

// jwksRefetchFloor is how soon after a fetch a token naming a key id the
// agent does not hold fetches again, so that tokens naming made-up key ids
// cannot drive a fetch per call. Tests shorten it.
var jwksRefetchFloor = 10 * time.Second

// jwtAuth accepts calls whose bearer token is a JWT of the configured
// issuer and audiences, verified with a key of the issuer's key set.
type jwtAuth struct {
	cfg   *agentconfig.JWT
	algs  []jose.SignatureAlgorithm
	keys  keySet
	now   func() time.Time
	realm string
}

// keySet finds the keys that may have signed a token naming kid (every
// key for none).
type keySet interface {
	lookup(kid string) []jose.JSONWebKey
}

// newJWTAuth reads the key set: a URL is fetched now, so that a wrong
// address or an issuer that does not answer fails the start, not every
// call.
func newJWTAuth(ctx context.Context, cfg *agentconfig.JWT) (*jwtAuth, error) {
	// Written as references, they are known only now: an empty issuer or
	// audience would let the checks of iss and aud pass any token.
	if cfg.Issuer == "" || len(cfg.Audiences) == 0 || slices.Contains(cfg.Audiences, "") {
		return nil, errors.New("[auth.jwt] issuer and every audience must have a value: a variable they reference expanded to nothing; set it in the agent's environment")
	}
	a := &jwtAuth{cfg: cfg, algs: cfg.AcceptedAlgorithms(), now: time.Now, realm: bearerRealm}
	switch {
	case cfg.JWKS != "":
		set, err := agentconfig.ParseJWKS([]byte(cfg.JWKS))
		if err != nil {
			return nil, fmt.Errorf("[auth.jwt] jwks %w", err)
		}
		a.keys = staticKeys{set}
	case cfg.JWKSFile != "":
		data, err := os.ReadFile(cfg.JWKSFile)
		if err != nil {
			return nil, fmt.Errorf("[auth.jwt] jwks_file: %w", err)
		}
		set, err := agentconfig.ParseJWKS(data)
		if err != nil {
			return nil, fmt.Errorf("[auth.jwt] jwks_file %s %w", cfg.JWKSFile, err)
		}
		a.keys = staticKeys{set}
	default:
		f := &fetchedKeys{url: cfg.JWKSURL, refresh: cfg.RefreshDuration(), now: time.Now,
			client: &http.Client{Timeout: jwksFetchTimeout, CheckRedirect: noRedirect}}
		if err := f.fetch(ctx); err != nil {
			return nil, fmt.Errorf("[auth.jwt] jwks_url: %w", err)
		}
		a.keys = f
	}
	return a, nil
}

// noRedirect keeps the fetch at the address the config names: a redirect
// could lead the agent to keys of someone else's choosing.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// check verifies the token, then the claims the config requires, and
// scopes the caller to its issuer and subject.
func (a *jwtAuth) check(r *http.Request) (authedCaller, *authRefusal) {
	raw, ok := bearerCredentials(r.Header.Get("Authorization"))
	if !ok {
		return authedCaller{}, &authRefusal{challenge: `Bearer realm="` + a.realm + `"`,
			problem: "this agent requires an Authorization: Bearer token, a JWT from " + a.cfg.Issuer}
	}
	tok, err := jwt.ParseSigned(raw, a.algs)
	if err != nil || len(tok.Headers) != 1 {
		return authedCaller{}, invalidToken("the bearer token is not a JWT signed with " + algNames(a.algs))
	}
	kid := tok.Headers[0].KeyID
	var claims jwt.Claims
	var extra map[string]any
	verified := false
	for _, k := range a.keys.lookup(kid) {
		if tok.Claims(k.Key, &claims, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return authedCaller{}, invalidToken(fmt.Sprintf("the token's signature does not verify with any key of the issuer's key set (kid %q)", kid))
	}
	if claims.Expiry == nil {
		return authedCaller{}, invalidToken("the token has no expiry (exp): the agent accepts only tokens that expire")
	}
	expected := jwt.Expected{Issuer: a.cfg.Issuer, AnyAudience: a.cfg.Audiences, Time: a.now()}
	if err := claims.ValidateWithLeeway(expected, a.cfg.LeewayDuration()); err != nil {
		return authedCaller{}, invalidToken(claimsProblem(err))
	}
	if claims.Subject == "" {
		return authedCaller{}, invalidToken("the token names no subject (sub), whom the call's tasks would belong to")
	}
	scopes := tokenScopes(extra)
	if missing := missingOf(a.cfg.RequiredScopes, scopes); len(missing) > 0 {
		return authedCaller{}, &authRefusal{forbidden: true,
			challenge: fmt.Sprintf(`Bearer realm="%s", error="insufficient_scope", scope="%s"`, a.realm, strings.Join(a.cfg.RequiredScopes, " ")),
			problem:   "the token lacks the scopes " + strings.Join(missing, ", ") + " this agent requires"}
	}
	if name := unmetClaim(a.cfg.RequiredClaims, extra); name != "" {
		return authedCaller{}, &authRefusal{forbidden: true, challenge: `Bearer realm="` + a.realm + `", error="insufficient_scope"`,
			problem: fmt.Sprintf("the token's claim %q does not hold the value this agent requires", name)}
	}
	return authedCaller{scope: jwtIdentity(claims.Issuer, claims.Subject), scopes: scopes}, nil
}

// jwtIdentity names a subject of an issuer without writing either out:
// tasks are scoped to it, and it may appear in logs.
func jwtIdentity(issuer, subject string) string {
	sum := sha256.Sum256([]byte(issuer + "\x00" + subject))
	return "jwt:" + hex.EncodeToString(sum[:8])
}

func claimsProblem(err error) string {
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return "the token has expired"
	case errors.Is(err, jwt.ErrNotValidYet):
		return "the token is not valid yet (nbf)"
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return "the token is issued in the future (iat)"
	case errors.Is(err, jwt.ErrInvalidAudience):
		return "the token is not meant for this agent: its audience (aud) is none the agent accepts"
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return "the token is from another issuer (iss) than the one this agent accepts"
	default:
		return "the token's claims are not valid"
	}
}

func algNames(algs []jose.SignatureAlgorithm) string {
	names := make([]string, len(algs))
	for i, a := range algs {
		names[i] = string(a)
	}
	return strings.Join(names, " or ")
}

// tokenScopes reads OAuth's "scope" (space separated, RFC 8693) and the
// "scp" some issuers send instead (a list, or space separated).
func tokenScopes(claims map[string]any) []string {
	var scopes []string
	for _, name := range []string{"scope", "scp"} {
		switch v := claims[name].(type) {
		case string:
			scopes = append(scopes, strings.Fields(v)...)
		case []any:
			for _, s := range v {
				if s, ok := s.(string); ok {
					scopes = append(scopes, s)
				}
			}
		}
	}
	return scopes
}

// unmetClaim names the first required claim the token does not hold: a
// string claim must equal the value, a list claim must contain it.
func unmetClaim(required map[string]string, claims map[string]any) string {
	names := make([]string, 0, len(required))
	for n := range required {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		switch v := claims[n].(type) {
		case string:
			if v == required[n] {
				continue
			}
		case []any:
			if slices.Contains(v, any(required[n])) {
				continue
			}
		}
		return n
	}
	return ""
}

// staticKeys is a key set read once, from the config or a file.
type staticKeys struct{ set *jose.JSONWebKeySet }

func (s staticKeys) lookup(kid string) []jose.JSONWebKey { return keysFor(s.set, kid) }

func keysFor(set *jose.JSONWebKeySet, kid string) []jose.JSONWebKey {
	if kid == "" {
		return set.Keys
	}
	return set.Key(kid)
}

// fetchedKeys is the key set at a URL, fetched again once it is older
// than refresh, in the background, and at once, at most every
// jwksRefetchFloor, when a token names a key it does not hold: how an
// issuer's new key is taken up as soon as tokens signed with it arrive. A
// fetch that fails keeps the keys there are.
type fetchedKeys struct {
	url     string
	refresh time.Duration
	client  *http.Client
	now     func() time.Time

	mu       sync.Mutex
	set      *jose.JSONWebKeySet
	fetched  time.Time // of the set held
	tried    time.Time // the last fetch begun
	fetching bool
}

func (f *fetchedKeys) lookup(kid string) []jose.JSONWebKey {
	f.mu.Lock()
	set, now := f.set, f.now()
	stale := now.Sub(f.fetched) >= f.refresh && !f.fetching
	retry := now.Sub(f.tried) >= jwksRefetchFloor && !f.fetching
	f.mu.Unlock()
	if keys := keysFor(set, kid); len(keys) > 0 {
		if stale {
			go func() { _ = f.fetch(context.Background()) }()
		}
		return keys
	}
	if !retry {
		return nil
	}
	if err := f.fetch(context.Background()); err != nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return keysFor(f.set, kid)
}

// fetch replaces the key set with the one the URL serves now.
func (f *fetchedKeys) fetch(ctx context.Context) error {
	f.mu.Lock()
	if f.fetching {
		f.mu.Unlock()
		return errors.New("a fetch of the key set is under way")
	}
	f.fetching, f.tried = true, f.now()
	f.mu.Unlock()
	set, err := f.get(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetching = false
	if err != nil {
		return err
	}
	f.set, f.fetched = set, f.now()
	return nil
}

func (f *fetchedKeys) get(ctx context.Context) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	res, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", f.url, err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s, not the key set", f.url, res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSBytes+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("read the key set from %s: %w", f.url, err)
	case len(data) > maxJWKSBytes:
		return nil, fmt.Errorf("the key set at %s is larger than %d bytes", f.url, maxJWKSBytes)
	}
	set, err := agentconfig.ParseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("what %s serves %w", f.url, err)
	}
	return set, nil
}
