package provider

import (
	"errors"
	"fmt"

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
