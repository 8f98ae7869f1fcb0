package card

import (
	"bytes"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// Encoding says which fields a published card carries.
type Encoding uint8

const (
	// Strict10 writes only what the A2A 1.0 schema names, so that every
	// strict 1.0 reader (a schema validator, ProtoJSON that refuses
	// unknown fields) accepts the card. 0.3 clients find no endpoint in it.
	Strict10 Encoding = iota
	// With03Fields writes, beside the 1.0 fields, those an A2A 0.3 client
	// reads (see add03Fields), so that 0.3 clients discover the agent from
	// the same card. The 1.0 schema forbids them: strict 1.0 readers may
	// refuse the card.
	With03Fields
)

// EncodingFor is the encoding the agent host publishes cfg's card in:
// strict 1.0 unless the config asks for the 0.3 fields ([card] v03_fields).
func EncodingFor(cfg *agentconfig.Config) Encoding {
	if cfg.Card.V03Fields {
		return With03Fields
	}
	return Strict10
}

// MarshalCard encodes a card as A2A 1.0 JSON in enc, the bytes an agent
// publishes at WellKnownPath and the bytes Sign signs. Serve these rather
// than the SDK's own encoding, which differs from the proto's JSON in two
// places: security requirement scopes are written as {"list": [...]}
// objects, and the capability flags are written even when false, so a
// reader sees what the agent declines as plainly as what it offers. With
// With03Fields, a card that declares a 0.3 interface also carries the 0.3
// fields alongside, so that a 0.3 client finds its endpoint in the same
// card; they are part of what Sign signs, so rewriting where 0.3 clients
// are sent breaks the signature as rewriting any 1.0 field does.
func MarshalCard(c *a2a.AgentCard, enc Encoding) ([]byte, error) {
	sdk, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	tree, err := decodeTree(sdk)
	if err != nil {
		return nil, err
	}
	obj := tree.(map[string]any)
	rewriteScopes(obj, wrapScopes)
	if enc == With03Fields {
		add03Fields(obj, c)
	}
	if caps, ok := obj["capabilities"].(map[string]any); ok {
		caps["streaming"] = c.Capabilities.Streaming
		caps["pushNotifications"] = c.Capabilities.PushNotifications
		caps["extendedAgentCard"] = c.Capabilities.ExtendedAgentCard
	}
	var buf bytes.Buffer
	out := json.NewEncoder(&buf)
	out.SetEscapeHTML(false)
	out.SetIndent("", "  ")
	if err := out.Encode(obj); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// wrapScopes turns the SDK's bare scope array into the proto's {"list": [...]}.
func wrapScopes(scopes any) any {
	list, _ := scopes.([]any)
	if list == nil {
		list = []any{}
	}
	return map[string]any{"list": list}
}
