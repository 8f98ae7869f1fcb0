package card

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// jwsType is the typ header A2A 1.0 §8.4.2 asks signatures to carry.
const jwsType = "JOSE"

// ErrNotSigned is returned by Verify for a card without signatures.
var ErrNotSigned = errors.New("agent card is not signed: it has no signatures")

// ErrNoValidSignature is returned by Verify when no signature of a card
// verifies with any of the given keys.
var ErrNoValidSignature = errors.New("no signature of the agent card verifies with the given public keys")

// Sign appends a signature to c per A2A 1.0 §8.4: a JWS whose protected
// header carries alg, typ and kid, over the card in enc without its
// signatures, default values dropped and canonicalised with RFC 8785.
// Publish the card with MarshalCard in the same encoding afterwards: the
// signature covers exactly those bytes' content. keyPEM is an EC P-256, Ed25519 or RSA private key in PEM
// (PKCS#8, SEC1 or PKCS#1). An empty keyID is replaced by the key's RFC 7638
// thumbprint.
func Sign(c *a2a.AgentCard, keyPEM []byte, keyID string, enc Encoding) error {
	cardJSON, err := MarshalCard(c, enc)
	if err != nil {
		return fmt.Errorf("encode agent card for signing: %w", err)
	}
	payload, err := canonicalPayload(cardJSON)
	if err != nil {
		return err
	}
	return signPayload(c, payload, keyPEM, keyID)
}

// signPayload appends to c a detached JWS over payload.
func signPayload(c *a2a.AgentCard, payload, keyPEM []byte, keyID string) error {
	key, alg, err := parsePrivateKey(keyPEM)
	if err != nil {
		return err
	}
	if keyID == "" {
		if keyID, err = thumbprint(key.Public()); err != nil {
			return fmt.Errorf("signing key: %w", err)
		}
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: keyID}},
		(&jose.SignerOptions{}).WithType(jwsType),
	)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return fmt.Errorf("sign agent card: %w", err)
	}
	detached, err := jws.DetachedCompactSerialize()
	if err != nil {
		return fmt.Errorf("sign agent card: %w", err)
	}
	protected, sig, _ := strings.Cut(detached, "..")
	c.Signatures = append(c.Signatures, a2a.AgentCardSignature{Protected: protected, Signature: sig})
	return nil
}

// Verification tells which signature of a card verified.
type Verification struct {
	// KeyID is the kid of the signature's protected header.
	KeyID string
	// Algorithm is the signature's JWS algorithm.
	Algorithm string
	// SignatureIndex is the signature's position in the card's signatures.
	SignatureIndex int
	// KeyIndex is the position, in the keys given to Verify, of the PEM
	// that holds the key it verified with.
	KeyIndex int
}

// Verify checks the signatures of a card as fetched (its raw JSON) against
// trusted public keys (PEM: PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE). A
// card verifies when at least one of its signatures verifies with one of
// the keys, so a card still signed by a retired key as well verifies. A
// card without signatures yields ErrNotSigned; one whose signatures all
// fail yields an error wrapping ErrNoValidSignature.
func Verify(raw []byte, publicKeysPEM [][]byte) (Verification, error) {
	if len(publicKeysPEM) == 0 {
		return Verification{}, errors.New("no public keys given to verify the agent card against")
	}
	type indexedKey struct {
		key   any
		index int
	}
	var keys []indexedKey
	for i, p := range publicKeysPEM {
		parsed, err := parsePublicKeys(p)
		if err != nil {
			return Verification{}, fmt.Errorf("public key %d: %w", i+1, err)
		}
		for _, k := range parsed {
			keys = append(keys, indexedKey{k, i})
		}
	}
	signatures, err := readSignatures(raw)
	if err != nil {
		return Verification{}, err
	}
	payload, err := canonicalPayload(raw)
	if err != nil {
		return Verification{}, err
	}
	var failures []string
	for i, s := range signatures {
		jws, err := jose.ParseDetached(s.Protected+".."+s.Signature, payload, verifyAlgorithms)
		if err != nil {
			failures = append(failures, fmt.Sprintf("signature %d is malformed (%v)", i, err))
			continue
		}
		header := jws.Signatures[0].Protected
		for _, k := range keys {
			if _, err := jws.Verify(k.key); err == nil {
				return Verification{KeyID: header.KeyID, Algorithm: header.Algorithm, SignatureIndex: i, KeyIndex: k.index}, nil
			}
		}
		failures = append(failures, fmt.Sprintf("signature %d (kid %q, %s) matches none of the keys", i, header.KeyID, header.Algorithm))
	}
	return Verification{}, fmt.Errorf("%w: %s", ErrNoValidSignature, strings.Join(failures, "; "))
}

// readSignatures reads the card's signatures from the property named
// exactly "signatures", the one canonicalPayload leaves out, and from the
// properties of each that the model defines.
func readSignatures(raw []byte) ([]a2a.AgentCardSignature, error) {
	if len(raw) > MaxCardBytes {
		return nil, fmt.Errorf("agent card is %d bytes, more than the %d allowed", len(raw), MaxCardBytes)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, fmt.Errorf("agent card %w", err)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("agent card must be a JSON object, not %s", jsonType(tree))
	}
	list := listShape{signature}
	var signatures []a2a.AgentCardSignature
	if present := obj["signatures"]; present != nil {
		c := &checker{}
		list.check(present, "$.signatures", c)
		if len(c.problems) > 0 {
			return nil, fmt.Errorf("agent card $.signatures is not a list of signatures: %s", c.problems[0])
		}
		known, err := json.Marshal(list.known(present))
		if err == nil {
			err = json.Unmarshal(known, &signatures)
		}
		if err != nil {
			return nil, fmt.Errorf("agent card $.signatures is not a list of signatures: %w", err)
		}
	}
	if len(signatures) == 0 {
		return nil, ErrNotSigned
	}
	return signatures, nil
}

// canonicalPayload is what a card's signatures sign (§8.4.1): the card
// without its signatures, fields holding default values dropped per the
// proto's field presence, canonicalised with RFC 8785.
func canonicalPayload(cardJSON []byte) ([]byte, error) {
	tree, err := decodeTree(cardJSON)
	if err != nil {
		return nil, fmt.Errorf("agent card %w", err)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("agent card must be a JSON object, not %s", jsonType(tree))
	}
	delete(obj, "signatures")
	model := card10
	if detectVersion(obj) == SpecVersion03 {
		model = card03
	}
	stripped, err := json.Marshal(model.strip(obj))
	if err != nil {
		return nil, err
	}
	return jcs.Transform(stripped)
}
