package agentconfig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

func TestJWTValidation(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set := func(k any) string {
		data, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	public, private := set(&key.PublicKey), set(key)
	base := "[agent]\nname = \"J\"\n[auth.jwt]\n"
	good := "issuer = \"https://idp.example.com/\"\naudiences = [\"agents\"]\n"
	tests := []struct {
		name, body string
		key, want  string // the problem's key and words of its message; none for a valid config
	}{
		{"inline key set", good + "jwks = '''" + public + "'''\n", "", ""},
		{"URL on this machine over http", good + "jwks_url = \"http://127.0.0.1:9/jwks\"\n", "", ""},
		{"references left to the start", "issuer = \"${ISSUER}\"\naudiences = [\"${AUD}\"]\njwks_url = \"${JWKS_URL}\"\n", "", ""},
		{"with bearer_token too", good + "jwks_url = \"https://idp.example.com/jwks\"\n[auth]\nbearer_token = \"t\"\n", "auth.jwt", "both bearer_token and [auth.jwt]"},
		{"no issuer", "audiences = [\"agents\"]\njwks_url = \"https://idp.example.com/jwks\"\n", "auth.jwt.issuer", "issuer is empty"},
		{"no audience", "issuer = \"i\"\njwks_url = \"https://idp.example.com/jwks\"\n", "auth.jwt.audiences", "at least one audience"},
		{"no key set", good, "auth.jwt", "sets 0 of jwks_url, jwks_file and jwks"},
		{"two key sets", good + "jwks_url = \"https://idp.example.com/jwks\"\njwks_file = \"/keys.json\"\n", "auth.jwt", "sets 2 of"},
		{"plain http elsewhere", good + "jwks_url = \"http://idp.example.com/jwks\"\n", "auth.jwt.jwks_url", "plain http"},
		{"not a URL", good + "jwks_url = \"idp.example.com/jwks\"\n", "auth.jwt.jwks_url", "not an absolute https URL"},
		{"private key", good + "jwks = '''" + private + "'''\n", "auth.jwt.jwks", "private or shared-secret key"},
		{"not a key set", good + "jwks = \"[1, 2]\"\n", "auth.jwt.jwks", "not a JSON Web Key Set"},
		{"empty key set", good + "jwks = '{\"keys\": []}'\n", "auth.jwt.jwks", "holds no keys"},
		{"HS256", good + "jwks_url = \"https://idp.example.com/jwks\"\nalgorithms = [\"HS256\"]\n", "auth.jwt.algorithms", `"HS256", which is not one the agent verifies with a public key`},
		{"none", good + "jwks_url = \"https://idp.example.com/jwks\"\nalgorithms = [\"none\"]\n", "auth.jwt.algorithms", `"none"`},
		{"leeway too long", good + "jwks_url = \"https://idp.example.com/jwks\"\nleeway = \"1h\"\n", "auth.jwt.leeway", "from \"0s\""},
		{"refresh too often", good + "jwks_url = \"https://idp.example.com/jwks\"\njwks_refresh = \"1s\"\n", "auth.jwt.jwks_refresh", "at least"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(base + tt.body))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse = %v, want a config error on %s", err, tt.key)
			}
			for _, p := range cerr.Problems {
				if p.Key == tt.key && strings.Contains(p.Message, tt.want) {
					if strings.Contains(p.Message, "-----") || strings.Contains(p.Message, `"d"`) {
						t.Errorf("the problem quotes key material: %s", p.Message)
					}
					return
				}
			}
			t.Errorf("problems %v, want one on %s saying %q", cerr.Problems, tt.key, tt.want)
		})
	}
}

func TestSkillAuthValidation(t *testing.T) {
	jwt := "[auth.jwt]\nissuer = \"i\"\naudiences = [\"a\"]\njwks_url = \"https://idp.example.com/jwks\"\n"
	tests := []struct {
		name, config, key, want string
	}{
		{"extended with a token", "[auth]\nbearer_token = \"t\"\n[[skills]]\nid = \"a\"\n[[skills]]\nid = \"b\"\nextended = true\n", "", ""},
		{"scopes with jwt", jwt + "[[skills]]\nid = \"a\"\nscopes = [\"s\"]\n", "", ""},
		{"extended without auth", "[[skills]]\nid = \"a\"\n[[skills]]\nid = \"b\"\nextended = true\n", "skills[1].extended", "authenticates none"},
		{"scopes without jwt", "[auth]\nbearer_token = \"t\"\n[[skills]]\nid = \"a\"\nscopes = [\"s\"]\n", "skills[0].scopes", "only tokens of [auth.jwt] carry"},
		{"every skill extended", "[auth]\nbearer_token = \"t\"\n[[skills]]\nid = \"a\"\nextended = true\n", "skills", "every skill is extended"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte("[agent]\nname = \"S\"\n" + tt.config))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse = %v, want a problem on %s", err, tt.key)
			}
			for _, p := range cerr.Problems {
				if p.Key == tt.key && strings.Contains(p.Message, tt.want) {
					return
				}
			}
			t.Errorf("problems %v, want one on %s saying %q", cerr.Problems, tt.key, tt.want)
		})
	}
}
