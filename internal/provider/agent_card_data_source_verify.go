package provider

import (
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// verifySignature checks the card's signature when verify_signature asks
// for it. A card that does not verify fails the read: the operator asked
// not to trust an unsigned or tampered card.
func (m *agentCardModel) verifySignature(raw []byte, diags *diag.Diagnostics) {
	m.SignatureVerified = types.BoolValue(false)
	m.SignatureKeyID = types.StringNull()
	if m.VerifySignature == nil {
		return
	}
	keys := make([][]byte, len(m.VerifySignature.PublicKeysPEM))
	for i, k := range m.VerifySignature.PublicKeysPEM {
		keys[i] = []byte(k)
	}
	// Keys not known at plan time are checked here instead, before the
	// private key can reach state.
	if d := privateKeyDiags(m.VerifySignature.PublicKeysPEM); d.HasError() {
		diags.Append(d...)
		return
	}
	verification, err := card.Verify(raw, keys)
	if err != nil {
		advice := "Do not trust this card. If the agent's signing key was rotated, add its new public key to public_keys_pem."
		if errors.Is(err, card.ErrNotSigned) {
			advice = "The agent publishes an unsigned card: give it a signing key ([card] signing_key in its config), or remove verify_signature."
		}
		diags.AddAttributeError(path.Root("verify_signature"), "Agent card signature not verified",
			fmt.Sprintf("The card at %s did not verify: %v. %s", shownURL(m.CardURL.ValueString()), err, advice))
		return
	}
	m.SignatureVerified = types.BoolValue(true)
	m.SignatureKeyID = optionalString(verification.KeyID)
}

// publicKeysPath is where verify_signature's keys are configured.
var publicKeysPath = path.Root("verify_signature").AtName("public_keys_pem")

// privateKeyDiags refuses a private key given where a public key belongs:
// the data source's configuration is saved in Terraform state, so the key
// would be stored there, and verification would fail with an error that
// hides the real mistake. Keys are numbered as HCL indexes them.
func privateKeyDiags(keys []string) diag.Diagnostics {
	var diags diag.Diagnostics
	for i, key := range keys {
		if holdsPrivateKey(key) {
			diags.AddAttributeError(publicKeysPath.AtListIndex(i), "Private key given as a public key",
				fmt.Sprintf("public_keys_pem[%d] is a PRIVATE key; pass the public key instead (`openssl pkey -pubout` "+
					"prints it). Keep the private key with the agent ([card] signing_key), never in Terraform configuration.", i))
		}
	}
	return diags
}

// holdsPrivateKey reports whether any PEM block of text is a private key,
// whatever its algorithm or format ("PRIVATE KEY", "EC PRIVATE KEY",
// "OPENSSH PRIVATE KEY", ...).
func holdsPrivateKey(text string) bool {
	rest := []byte(text)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return false
		}
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			return true
		}
	}
}
