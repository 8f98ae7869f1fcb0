package agentconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// JWT is [auth.jwt]: the host accepts a call whose bearer token is a JSON
// Web Token the issuer signed for one of the audiences, with one of the
// algorithms, from a key of the key set, unexpired, carrying every required
// scope and claim. Its tasks belong to the token's issuer and subject.
type JWT struct {
	Issuer    string   `toml:"issuer"`
	Audiences []string `toml:"audiences"`
	// Exactly one of JWKSURL (fetched at start, refreshed), JWKSFile (read
	// at start) and JWKS (the key set itself, as JSON) gives the keys.
	JWKSURL  string `toml:"jwks_url"`
	JWKSFile string `toml:"jwks_file"`
	JWKS     string `toml:"jwks"`
	// Algorithms are the signature algorithms accepted; empty means
	// DefaultJWTAlgorithms.
	Algorithms []string `toml:"algorithms"`
	// RequiredScopes must all be among the token's scopes ("scope", space
	// separated, or "scp", a list or space-separated).
	RequiredScopes []string `toml:"required_scopes"`
	// RequiredClaims must each equal the token's claim of that name, or be
	// one of its values when the claim is a list.
	RequiredClaims map[string]string `toml:"required_claims"`
	// Leeway is the clock skew allowed on exp, nbf and iat.
	Leeway string `toml:"leeway"`
	// Refresh is how long a key set fetched from JWKSURL is used before it
	// is fetched again.
	Refresh string `toml:"jwks_refresh"`
}

// Defaults of [auth.jwt].
const (
	DefaultJWTLeeway   = time.Minute
	DefaultJWKSRefresh = 5 * time.Minute
	maxJWTLeeway       = 5 * time.Minute
	minJWKSRefresh     = 10 * time.Second
)

// DefaultJWTAlgorithms are what identity providers sign with by default.
var DefaultJWTAlgorithms = []string{string(jose.RS256), string(jose.ES256)}

// jwtAlgorithms are the algorithms a public key verifies: a shared-secret
// algorithm (HS256) would let anyone who reads the key set sign tokens, and
// "none" signs nothing.
var jwtAlgorithms = []string{
	string(jose.RS256), string(jose.RS384), string(jose.RS512),
	string(jose.PS256), string(jose.PS384), string(jose.PS512),
	string(jose.ES256), string(jose.ES384), string(jose.ES512),
	string(jose.EdDSA),
}

// AcceptedAlgorithms are the algorithms a token may be signed with.
func (j *JWT) AcceptedAlgorithms() []jose.SignatureAlgorithm {
	names := j.Algorithms
	if len(names) == 0 {
		names = DefaultJWTAlgorithms
	}
	algs := make([]jose.SignatureAlgorithm, len(names))
	for i, n := range names {
		algs[i] = jose.SignatureAlgorithm(n)
	}
	return algs
}

// LeewayDuration is the leeway, parsed; validation has checked it.
func (j *JWT) LeewayDuration() time.Duration {
	if d, err := time.ParseDuration(j.Leeway); err == nil {
		return d
	}
	return DefaultJWTLeeway
}

// RefreshDuration is the refresh interval, parsed; validation has checked it.
func (j *JWT) RefreshDuration() time.Duration {
	if d, err := time.ParseDuration(j.Refresh); err == nil {
		return d
	}
	return DefaultJWKSRefresh
}

func (c *Config) validateJWT(add func(key, msg string)) {
	c.validateSkillAuth(add)
	j := c.Auth.JWT
	if j == nil {
		return
	}
	if c.Auth.BearerToken != "" {
		add("auth.jwt", "[auth] sets both bearer_token and [auth.jwt]: a caller proves itself one way; keep one of them")
	}
	if j.Issuer == "" {
		add("auth.jwt.issuer", "auth.jwt.issuer is empty: name the issuer whose tokens the agent accepts, as its tokens' iss claim spells it, such as \"https://idp.example.com/\"")
	}
	if len(j.Audiences) == 0 || slices.Contains(j.Audiences, "") {
		add("auth.jwt.audiences", "auth.jwt.audiences must list at least one audience, none empty: the aud value the issuer puts in tokens meant for this agent")
	}
	sources := 0
	for _, s := range []string{j.JWKSURL, j.JWKSFile, j.JWKS} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 {
		add("auth.jwt", fmt.Sprintf("[auth.jwt] sets %d of jwks_url, jwks_file and jwks: set exactly one, where the issuer's public keys are", sources))
	}
	if u := j.JWKSURL; u != "" && !HasReference(u) {
		if problem := checkJWKSURL(u); problem != "" {
			add("auth.jwt.jwks_url", problem)
		}
	}
	if k := j.JWKS; k != "" && !HasReference(k) {
		if _, err := ParseJWKS([]byte(k)); err != nil {
			add("auth.jwt.jwks", "auth.jwt.jwks: "+err.Error())
		}
	}
	for _, a := range j.Algorithms {
		if !slices.Contains(jwtAlgorithms, a) {
			add("auth.jwt.algorithms", fmt.Sprintf("auth.jwt.algorithms names %q, which is not one the agent verifies with a public key: use %s",
				a, strings.Join(jwtAlgorithms, ", ")))
		}
	}
	if d, err := time.ParseDuration(j.Leeway); j.Leeway != "" && (err != nil || d < 0 || d > maxJWTLeeway) {
		add("auth.jwt.leeway", fmt.Sprintf("auth.jwt.leeway %q is not a duration from \"0s\" to %q", j.Leeway, maxJWTLeeway))
	}
	if d, err := time.ParseDuration(j.Refresh); j.Refresh != "" && (err != nil || d < minJWKSRefresh) {
		add("auth.jwt.jwks_refresh", fmt.Sprintf("auth.jwt.jwks_refresh %q is not a duration of at least %q", j.Refresh, minJWKSRefresh))
	}
	if slices.Contains(j.RequiredScopes, "") {
		add("auth.jwt.required_scopes", "auth.jwt.required_scopes holds an empty scope")
	}
}

// checkJWKSURL refuses a key set URL that is not https, but for one on
// this machine: keys fetched in the clear can be swapped on the way.
func checkJWKSURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Sprintf("auth.jwt.jwks_url %q is not an absolute https URL such as https://idp.example.com/.well-known/jwks.json", raw)
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Sprintf("auth.jwt.jwks_url %q is plain http: anyone on the way could hand the agent keys of their own; use https (plain http is taken only from this machine's loopback address)", raw)
	}
	return ""
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseJWKS reads a JSON Web Key Set of public signing keys. Its errors
// never quote the set.
func ParseJWKS(data []byte) (*jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, errors.New("is not a JSON Web Key Set ({\"keys\": [...]}, RFC 7517)")
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("holds no keys")
	}
	for i, k := range set.Keys {
		switch {
		case !k.Valid():
			return nil, fmt.Errorf("key %d is not a valid key", i+1)
		case !k.IsPublic():
			return nil, fmt.Errorf("key %d (kid %q) is a private or shared-secret key: publish only the issuer's public keys", i+1, k.KeyID)
		case k.Use != "" && k.Use != "sig":
			return nil, fmt.Errorf("key %d (kid %q) is for use %q, not signatures (\"sig\")", i+1, k.KeyID, k.Use)
		}
	}
	return &set, nil
}

// validateSkillAuth checks the skills' extended and scopes, which mean
// something only to a caller the host authenticates.
func (c *Config) validateSkillAuth(add func(key, msg string)) {
	extended := 0
	for i, s := range c.Skills {
		if s.Extended {
			extended++
			if c.Auth.BearerToken == "" && c.Auth.JWT == nil {
				add(fmt.Sprintf("skills[%d].extended", i), fmt.Sprintf("skill %q is extended, which only authenticated callers see, "+
					"and the agent authenticates none: set [auth] bearer_token or [auth.jwt], or remove extended", s.ID))
			}
		}
		if len(s.Scopes) > 0 && c.Auth.JWT == nil {
			add(fmt.Sprintf("skills[%d].scopes", i), fmt.Sprintf("skill %q names scopes, which only tokens of [auth.jwt] carry: set [auth.jwt], or remove scopes", s.ID))
		}
		if slices.Contains(s.Scopes, "") {
			add(fmt.Sprintf("skills[%d].scopes", i), fmt.Sprintf("skill %q names an empty scope", s.ID))
		}
	}
	if extended > 0 && extended == len(c.Skills) {
		add("skills", "every skill is extended: the public card must list at least one skill; make one of them public (remove its extended)")
	}
}
