package card

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// minRSABits is the smallest RSA modulus accepted for signing: smaller keys
// are breakable and RFC 7518 forbids them for RS256.
const minRSABits = 2048

// verifyAlgorithms are the JWS algorithms a card signature may use. HMAC
// and "none" are absent on purpose: a public key must never be usable as a
// shared secret, and an unsigned card is not a signed one.
var verifyAlgorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
}

// parsePrivateKey reads a PEM private key: PKCS#8 ("PRIVATE KEY"), SEC1
// ("EC PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY"). Errors never quote the
// key itself.
func parsePrivateKey(keyPEM []byte) (crypto.Signer, jose.SignatureAlgorithm, error) {
	rest := keyPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, "", errors.New("signing key: no PEM private key found; give a PEM block of type PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY")
		}
		var (
			key any
			err error
		)
		switch block.Type {
		case "EC PARAMETERS":
			// openssl ecparam -genkey writes the curve before the key.
			continue
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "ENCRYPTED PRIVATE KEY":
			return nil, "", errors.New("signing key: the PEM key is encrypted; give it decrypted (the agent host has no passphrase to open it)")
		default:
			return nil, "", fmt.Errorf("signing key: PEM block of type %q is not a private key; give PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY", block.Type)
		}
		if err != nil {
			return nil, "", fmt.Errorf("signing key: the %s block does not hold a valid key: %w", block.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, "", fmt.Errorf("signing key: %T keys cannot sign", key)
		}
		alg, err := algorithmFor(signer.Public())
		if err != nil {
			return nil, "", fmt.Errorf("signing key: %w", err)
		}
		return signer, alg, nil
	}
}

// algorithmFor picks the JWS algorithm that matches a key.
func algorithmFor(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", fmt.Errorf("EC curve %s is not supported; use P-256", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return "", fmt.Errorf("RSA key has %d bits, fewer than the %d required", k.N.BitLen(), minRSABits)
		}
		return jose.RS256, nil
	}
	return "", fmt.Errorf("%T keys are not supported; use EC P-256, Ed25519 or RSA", pub)
}

// parsePublicKeys reads every public key in one PEM text: PKIX ("PUBLIC
// KEY"), PKCS#1 ("RSA PUBLIC KEY") or the key of a certificate.
func parsePublicKeys(keysPEM []byte) ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	rest := keysPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		var (
			key crypto.PublicKey
			err error
		)
		switch block.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			key, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var cert *x509.Certificate
			cert, err = x509.ParseCertificate(block.Bytes)
			if err == nil {
				key = cert.PublicKey
			}
		default:
			return nil, fmt.Errorf("PEM block of type %q is not a public key; give PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", block.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("the %s block does not hold a valid key: %w", block.Type, err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, errors.New("no PEM public key found")
	}
	return keys, nil
}

// thumbprint is the RFC 7638 JWK thumbprint of a public key, base64url
// encoded: a key id that anyone holding the public key can recompute.
func thumbprint(pub crypto.PublicKey) (string, error) {
	sum, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
