package card

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// testKey is a key generated for one test run; no key is kept on disk.
type testKey struct {
	name       string
	privatePEM []byte
	publicPEM  []byte
	alg        string
}

func newTestKey(t testing.TB, name string) testKey {
	t.Helper()
	var (
		signer crypto.Signer
		der    []byte
		block  string
		alg    string
		err    error
	)
	switch name {
	case "ec-pkcs8", "ec-sec1":
		var k *ecdsa.PrivateKey
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		signer, alg = k, "ES256"
		if name == "ec-sec1" {
			block = "EC PRIVATE KEY"
			der, err = x509.MarshalECPrivateKey(k)
		}
	case "ed25519":
		_, signer, err = ed25519.GenerateKey(rand.Reader)
		alg = "EdDSA"
	case "rsa-pkcs8", "rsa-pkcs1":
		var k *rsa.PrivateKey
		k, err = rsa.GenerateKey(rand.Reader, 2048)
		signer, alg = k, "RS256"
		if name == "rsa-pkcs1" {
			block, der = "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k)
		}
	default:
		t.Fatalf("unknown key kind %q", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	if block == "" {
		block = "PRIVATE KEY"
		if der, err = x509.MarshalPKCS8PrivateKey(signer); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		t.Fatal(err)
	}
	return testKey{
		name:       name,
		privatePEM: pem.EncodeToMemory(&pem.Block{Type: block, Bytes: der}),
		publicPEM:  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		alg:        alg,
	}
}

func derivedCard(t testing.TB) *a2a.AgentCard {
	t.Helper()
	c, err := Derive(mustConfig(t, fullConfig), "http://127.0.0.1:8731")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func signedJSON(t testing.TB, c *a2a.AgentCard, keys ...testKey) []byte {
	t.Helper()
	return signedIn(t, c, Strict10, keys...)
}

// signedIn signs c with each key and encodes it, both in enc.
func signedIn(t testing.TB, c *a2a.AgentCard, enc Encoding, keys ...testKey) []byte {
	t.Helper()
	for _, k := range keys {
		if err := Sign(c, k.privatePEM, "", enc); err != nil {
			t.Fatalf("Sign with %s: %v", k.name, err)
		}
	}
	raw, err := MarshalCard(c, enc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func protectedHeader(t *testing.T, s a2a.AgentCardSignature) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s.Protected)
	if err != nil {
		t.Fatalf("protected header is not base64url: %v", err)
	}
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatalf("protected header is not JSON: %v", err)
	}
	return h
}

func TestSignAndVerifyEachKeyType(t *testing.T) {
	for _, kind := range []string{"ec-pkcs8", "ec-sec1", "ed25519", "rsa-pkcs8", "rsa-pkcs1"} {
		t.Run(kind, func(t *testing.T) {
			key := newTestKey(t, kind)
			c := derivedCard(t)
			raw := signedJSON(t, c, key)

			h := protectedHeader(t, c.Signatures[0])
			pubKeys, err := parsePublicKeys(key.publicPEM)
			if err != nil {
				t.Fatal(err)
			}
			kid, err := thumbprint(pubKeys[0])
			if err != nil {
				t.Fatal(err)
			}
			if h["alg"] != key.alg || h["typ"] != "JOSE" || h["kid"] != kid {
				t.Errorf("protected header = %v; want alg %s, typ JOSE, kid %s", h, key.alg, kid)
			}
			got, err := Verify(raw, [][]byte{key.publicPEM})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got.KeyID != kid || got.Algorithm != key.alg || got.SignatureIndex != 0 || got.KeyIndex != 0 {
				t.Errorf("Verification = %+v", got)
			}
			if _, err := Parse(raw); err != nil {
				t.Errorf("signed card fails strict parsing: %v", err)
			}
		})
	}
}

func TestSignUsesGivenKeyID(t *testing.T) {
	key := newTestKey(t, "ec-pkcs8")
	c := derivedCard(t)
	if err := Sign(c, key.privatePEM, "card-key-2026", Strict10); err != nil {
		t.Fatal(err)
	}
	raw, err := MarshalCard(c, Strict10)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(raw, [][]byte{key.publicPEM})
	if err != nil || v.KeyID != "card-key-2026" {
		t.Errorf("Verify = %+v, %v; want kid card-key-2026", v, err)
	}
}

func TestVerifyRejects(t *testing.T) {
	key := newTestKey(t, "ec-pkcs8")
	other := newTestKey(t, "ed25519")
	raw := signedJSON(t, derivedCard(t), key)

	tamper := func(edit func(card map[string]any)) []byte {
		var card map[string]any
		if err := json.Unmarshal(raw, &card); err != nil {
			t.Fatal(err)
		}
		edit(card)
		out, err := json.Marshal(card)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name string
		raw  []byte
		keys [][]byte
		want error
	}{
		{"name changed", tamper(func(c map[string]any) { c["name"] = "Impostor" }), [][]byte{key.publicPEM}, ErrNoValidSignature},
		{"endpoint changed", tamper(func(c map[string]any) {
			c["supportedInterfaces"].([]any)[0].(map[string]any)["url"] = "http://evil.example.com"
		}), [][]byte{key.publicPEM}, ErrNoValidSignature},
		{"capability added", tamper(func(c map[string]any) {
			c["capabilities"].(map[string]any)["pushNotifications"] = true
		}), [][]byte{key.publicPEM}, ErrNoValidSignature},
		{"field added", tamper(func(c map[string]any) { c["iconUrl"] = "https://evil.example.com/i.png" }), [][]byte{key.publicPEM}, ErrNoValidSignature},
		{"wrong key", raw, [][]byte{other.publicPEM}, ErrNoValidSignature},
		{"signature swapped for alg none", tamper(func(c map[string]any) {
			s := c["signatures"].([]any)[0].(map[string]any)
			s["protected"] = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"x"}`))
			s["signature"] = ""
		}), [][]byte{key.publicPEM}, ErrNoValidSignature},
		{"not signed", tamper(func(c map[string]any) { delete(c, "signatures") }), [][]byte{key.publicPEM}, ErrNotSigned},
		{"empty signatures", tamper(func(c map[string]any) { c["signatures"] = []any{} }), [][]byte{key.publicPEM}, ErrNotSigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(tt.raw, tt.keys)
			if !errors.Is(err, tt.want) {
				t.Errorf("Verify error = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyAcceptsDefaultsWrittenOut(t *testing.T) {
	// A card may be re-encoded with default values written out (an empty
	// tenant, empty examples); §8.4.1 drops them before verifying.
	key := newTestKey(t, "ec-pkcs8")
	raw := signedJSON(t, derivedCard(t), key)
	var card map[string]any
	if err := json.Unmarshal(raw, &card); err != nil {
		t.Fatal(err)
	}
	card["supportedInterfaces"].([]any)[0].(map[string]any)["tenant"] = ""
	card["skills"].([]any)[1].(map[string]any)["examples"] = []any{}
	card["iconUrl"] = nil
	padded, err := json.MarshalIndent(card, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(padded, [][]byte{key.publicPEM}); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func TestVerifyKeyRotation(t *testing.T) {
	retired := newTestKey(t, "rsa-pkcs1")
	current := newTestKey(t, "ec-sec1")
	unrelated := newTestKey(t, "ed25519")
	raw := signedJSON(t, derivedCard(t), retired, current)

	got, err := Verify(raw, [][]byte{unrelated.publicPEM, current.publicPEM})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.SignatureIndex != 1 || got.KeyIndex != 1 || got.Algorithm != "ES256" {
		t.Errorf("Verification = %+v; want the second signature, by the second key", got)
	}
}

// TestCanonicalPayloadSpecExample is the example of §8.4.1: defaults of
// fields without presence are dropped, required and explicitly set ones
// kept, and the rest canonicalised with RFC 8785.
func TestCanonicalPayloadSpecExample(t *testing.T) {
	raw := []byte(`{
  "name": "Example Agent",
  "description": "",
  "capabilities": {
    "streaming": false,
    "pushNotifications": false,
    "extensions": []
  },
  "skills": [],
  "signatures": [{"protected": "e30", "signature": "AA"}]
}`)
	got, err := canonicalPayload(raw)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
	if string(got) != want {
		t.Errorf("canonical payload = %s\nwant the specification's %s", got, want)
	}
}

// TestVerifyCardWithUnknownFields: a card from a newer agent may carry
// properties this model does not know, on the card or nested. Parse reports
// them as deviations and reads the card without them; the signature covers
// them as §8.4.1 says: changed or added with a value, they break it, while
// one holding a default value is left out of the payload as a conforming
// signer leaves it out, and so changes neither the signature nor what the
// card reads as.
func TestVerifyCardWithUnknownFields(t *testing.T) {
	key := newTestKey(t, "ed25519")
	raw := []byte(`{
		"name": "Future Agent", "description": "From a later minor version.", "version": "9",
		"supportedInterfaces": [{"url": "https://f.example.com", "protocolBinding": "JSONRPC", "protocolVersion": "1.1", "priority": 3}],
		"capabilities": {"streaming": true, "telepathy": {"level": 2}},
		"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
		"skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"], "rating": 4.50}],
		"futureField": {"nested": [1, 2.0, "three"]}
	}`)
	signed := string(signRawForTest(t, raw, key))
	read, err := Parse([]byte(signed))
	if err != nil {
		t.Fatalf("Parse of the signed card: %v", err)
	}
	var deviations []string
	for _, d := range read.Deviations {
		deviations = append(deviations, d.Path)
	}
	want := []string{"$.capabilities.telepathy", "$.futureField", "$.skills[0].rating", "$.supportedInterfaces[0].priority"}
	if !slices.Equal(deviations, want) {
		t.Errorf("deviations of the signed card = %q; want %q", deviations, want)
	}
	tests := []struct {
		name, find, replace string
		want                error
	}{
		{"as signed", "", "", nil},
		{"nested unknown property changed", `"level":2`, `"level":3`, ErrNoValidSignature},
		{"top-level unknown property changed", `"three"`, `"four"`, ErrNoValidSignature},
		{"top-level unknown property added", `"futureField":`, `"homepage":"https://evil.example.com","futureField":`, ErrNoValidSignature},
		{"top-level unknown property holding a default added", `"futureField":`, `"homepage":"","futureField":`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card := strings.Replace(signed, tt.find, tt.replace, 1)
			if tt.find != "" && card == signed {
				t.Fatalf("%s not found in the card: %s", tt.find, signed)
			}
			if _, err := Verify([]byte(card), [][]byte{key.publicPEM}); !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v; want %v", err, tt.want)
			}
			if tt.want != nil {
				return
			}
			p, err := Parse([]byte(card))
			if err != nil || !reflect.DeepEqual(p.Card, read.Card) {
				t.Errorf("Parse of the verified card = %+v, %v; want it read as the signed card %+v", p.Card, err, read.Card)
			}
		})
	}
}

// signRawForTest signs card JSON that a2a.AgentCard cannot hold, the way a
// newer agent would: §8.4 over the payload this package computes.
func signRawForTest(t *testing.T, raw []byte, key testKey) []byte {
	t.Helper()
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	holder := &a2a.AgentCard{}
	payload, err := canonicalPayload(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := signPayload(holder, payload, key.privatePEM, "future-key"); err != nil {
		t.Fatal(err)
	}
	generic["signatures"] = holder.Signatures
	out, err := json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSignRefusesBadKeys(t *testing.T) {
	smallRSA, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384DER, err := x509.MarshalPKCS8PrivateKey(p384)
	if err != nil {
		t.Fatal(err)
	}
	pub := newTestKey(t, "ed25519").publicPEM
	tests := []struct {
		name string
		pem  []byte
		want string
	}{
		{"not PEM", []byte("not a key"), "no PEM private key found"},
		{"public key", pub, `"PUBLIC KEY" is not a private key`},
		{"encrypted", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}), "encrypted"},
		{"garbage in block", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), "does not hold a valid key"},
		{"small RSA", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(smallRSA)}), "1024 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Sign(derivedCard(t), tt.pem, "", Strict10)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Sign error = %v; want one mentioning %q", err, tt.want)
			}
		})
	}
	t.Run("P-384 signs as ES384", func(t *testing.T) {
		c := derivedCard(t)
		if err := Sign(c, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p384DER}), "", Strict10); err != nil {
			t.Fatal(err)
		}
		if alg := protectedHeader(t, c.Signatures[0])["alg"]; alg != "ES384" {
			t.Errorf("alg = %v", alg)
		}
	})
}

func TestVerifyRefusesBadKeys(t *testing.T) {
	raw := signedJSON(t, derivedCard(t), newTestKey(t, "ec-pkcs8"))
	tests := []struct {
		name string
		keys [][]byte
		want string
	}{
		{"no keys", nil, "no public keys given"},
		{"not PEM", [][]byte{[]byte("nope")}, "public key 1: no PEM public key found"},
		{"private key given", [][]byte{newTestKey(t, "ed25519").privatePEM}, `public key 1: PEM block of type "PRIVATE KEY" is not a public key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(raw, tt.keys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify error = %v; want one mentioning %q", err, tt.want)
			}
		})
	}
}

// TestSignedCardReadsAsSigned covers properties that Go's case-insensitive
// JSON decoding, or a second copy of a property, would read in place of the
// signed one. Left out of the signed payload (an unknown property holding a
// default value is dropped, as a conforming signer drops it), such a
// property would leave the signature valid while changing what the card
// says; each is refused, and the signature then covers everything read.
func TestSignedCardReadsAsSigned(t *testing.T) {
	key := newTestKey(t, "ec-pkcs8")
	signed := string(signedJSON(t, derivedCard(t), key))
	tests := []struct {
		name, find, replace, path string
	}{
		{"protocol binding cleared", `"protocolBinding": "JSONRPC",`, `"protocolBinding": "JSONRPC", "protocolbinding": "",`,
			"$.supportedInterfaces[0].protocolbinding"},
		{"push notifications claimed", `"pushNotifications": false,`, `"pushNotifications": false, "PushNotifications": true,`,
			"$.capabilities.PushNotifications"},
		{"streaming cleared", `"streaming": true`, `"streaming": true, "STREAMING": false`, "$.capabilities.STREAMING"},
		{"skill input modes cleared", `"inputModes": [`, `"inputmodes": [], "inputModes": [`, "$.skills[0].inputmodes"},
		{"name given twice", `"name": "Support Desk",`, `"name": "Support Desk", "name": "Someone Else",`, "$.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forged := strings.Replace(signed, tt.find, tt.replace, 1)
			if forged == signed {
				t.Fatalf("%s not found in the card: %s", tt.find, signed)
			}
			_, err := Parse([]byte(forged))
			var invalid *ValidationError
			if !errors.As(err, &invalid) || !slices.ContainsFunc(invalid.Problems, func(p Problem) bool { return p.Path == tt.path }) {
				t.Fatalf("Parse = %v; want a problem at %s", err, tt.path)
			}
		})
	}
	t.Run("what is read is what is signed", func(t *testing.T) {
		// Decoded from its defined properties only, a card carrying a
		// property that differs but for case reads as the signed card.
		var obj map[string]any
		forged := strings.Replace(signed, `"protocolBinding": "JSONRPC",`, `"protocolBinding": "JSONRPC", "protocolbinding": "",`, 1)
		if err := json.Unmarshal([]byte(forged), &obj); err != nil {
			t.Fatal(err)
		}
		read, err := convert(card10.known(obj).(map[string]any), SpecVersion10)
		if err != nil {
			t.Fatal(err)
		}
		if got := read.SupportedInterfaces[0].ProtocolBinding; got != a2a.TransportProtocolJSONRPC {
			t.Errorf("protocol binding read as %q; want the signed JSONRPC", got)
		}
	})
}

func TestVerifyRefusesDuplicateProperties(t *testing.T) {
	key := newTestKey(t, "ed25519")
	signed := string(signedJSON(t, derivedCard(t), key))
	forged := strings.Replace(signed, `"version": "1.4.0"`, `"version": "9.9.9", "version": "1.4.0"`, 1)
	if forged == signed {
		t.Fatalf("version not found in the card: %s", signed)
	}
	if _, err := Verify([]byte(forged), [][]byte{key.publicPEM}); err == nil || !strings.Contains(err.Error(), "$.version is given twice") {
		t.Errorf("Verify of a card with two versions = %v; want it refused, naming $.version", err)
	}
}
