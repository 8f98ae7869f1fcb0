package card

import (
	"bytes"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// MarshalCard encodes a card as A2A 1.0 JSON, the bytes an agent publishes
// at WellKnownPath and the bytes Sign signs. Serve these rather than the
// SDK's own encoding, which differs from the proto's JSON in two places:
// security requirement scopes are written as {"list": [...]} objects, and
// the capability flags are written even when false, so a reader sees what
// the agent declines as plainly as what it offers. A card that declares a
// 0.3 interface also carries the 0.3 fields alongside (see add03Fields), so
// that a 0.3 client finds its endpoint in the same card; they are part of
// what Sign signs, so rewriting where 0.3 clients are sent breaks the
// signature as rewriting any 1.0 field does.
func MarshalCard(c *a2a.AgentCard) ([]byte, error) {
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
	add03Fields(obj, c)
	if caps, ok := obj["capabilities"].(map[string]any); ok {
		caps["streaming"] = c.Capabilities.Streaming
		caps["pushNotifications"] = c.Capabilities.PushNotifications
		caps["extendedAgentCard"] = c.Capabilities.ExtendedAgentCard
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(obj); err != nil {
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
