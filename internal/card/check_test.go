package card

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strconv"
	"strings"
	"testing"
)

func TestCheckConfig(t *testing.T) {
	smallRSA, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ec := newTestKey(t, "ec-sec1")
	garbage := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("secret-looking bytes")})
	withKey := func(keyPEM []byte) string {
		return "[agent]\nname = \"A\"\n\n[card]\nsigning_key = " + strconv.Quote(string(keyPEM)) + "\n"
	}
	tests := []struct {
		name   string
		config string
		expand map[string]string
		want   []string // empty: the config passes
	}{
		{"no signing key", "[agent]\nname = \"A\"\n", nil, nil},
		{"literal usable key", withKey(ec.privatePEM), nil, nil},
		{"key from a variable is left to the start", "[agent]\nname = \"A\"\n[card]\nsigning_key = \"${SIGNING_KEY}\"\n", nil, nil},
		{"not PEM", withKey([]byte("not a key")), nil, []string{"line 5, column 1", "[card] signing key: no PEM private key found"}},
		{"public key", withKey(ec.publicPEM), nil, []string{"line 5", `"PUBLIC KEY" is not a private key`}},
		{"garbage in block", withKey(garbage), nil, []string{"line 5", "does not hold a valid key"}},
		{"small RSA", withKey(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(smallRSA)})), nil, []string{"1024 bits"}},
		{
			"provider emptied by expansion",
			"[agent]\nname = \"A\"\n[agent.provider]\norganization = \"${ORG}\"\nurl = \"https://example.com\"\n",
			map[string]string{"ORG": ""},
			[]string{"line 3, column 1", "needs both organization and url"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustConfig(t, tt.config)
			if tt.expand != nil {
				if err := cfg.Expand(func(k string) (string, bool) { v, ok := tt.expand[k]; return v, ok }); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckConfig(cfg)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("CheckConfig() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckConfig() = nil, want an error mentioning %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckConfig() = %q, want it to mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "BEGIN") || strings.Contains(err.Error(), "secret-looking") {
				t.Errorf("CheckConfig() error quotes the key: %q", err)
			}
		})
	}
}
