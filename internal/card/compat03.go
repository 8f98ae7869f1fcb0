package card

import "github.com/a2aproject/a2a-go/v2/a2a"

// defaultTransport03 is what a 0.3 card's url speaks when it names no
// preferredTransport (the 0.3 schema's default).
const defaultTransport03 = a2a.TransportProtocolJSONRPC

// oauthFlowOrder is the order in which a flow is picked from a 0.3 scheme
// that lists several: the 1.0 model holds one flow per scheme, and the
// authorization-code flow is the one the 0.3 specification recommends.
var oauthFlowOrder = []string{"authorizationCode", "clientCredentials", "password", "implicit"}

// upgrade03 rewrites a checked 0.3 card in the 1.0 JSON shape: url and
// preferredTransport become the first supported interface, the other
// interfaces follow, security becomes securityRequirements, typed security
// schemes become their 1.0 wrappers, and supportsAuthenticatedExtendedCard
// moves into capabilities.
func upgrade03(card map[string]any) map[string]any {
	out := make(map[string]any, len(card))
	for k, v := range card {
		out[k] = v
	}
	for _, k := range []string{"url", "preferredTransport", "additionalInterfaces", "protocolVersion", "security", "supportsAuthenticatedExtendedCard"} {
		delete(out, k)
	}
	out["supportedInterfaces"] = interfaces03(card)
	if reqs := requirements03(card["security"]); reqs != nil {
		out["securityRequirements"] = reqs
	}
	caps, _ := card["capabilities"].(map[string]any)
	upgraded := map[string]any{}
	for _, k := range []string{"streaming", "pushNotifications", "extensions"} {
		if v, ok := caps[k]; ok {
			upgraded[k] = v
		}
	}
	if extended, _ := card["supportsAuthenticatedExtendedCard"].(bool); extended {
		upgraded["extendedAgentCard"] = true
	}
	out["capabilities"] = upgraded
	if schemes, ok := card["securitySchemes"].(map[string]any); ok {
		wrapped := make(map[string]any, len(schemes))
		for name, s := range schemes {
			wrapped[name] = scheme03(s.(map[string]any))
		}
		out["securitySchemes"] = wrapped
	}
	if skills, ok := card["skills"].([]any); ok {
		upgradedSkills := make([]any, len(skills))
		for i, s := range skills {
			skill := map[string]any{}
			for k, v := range s.(map[string]any) {
				if k != "security" {
					skill[k] = v
				}
			}
			if reqs := requirements03(s.(map[string]any)["security"]); reqs != nil {
				skill["securityRequirements"] = reqs
			}
			upgradedSkills[i] = skill
		}
		out["skills"] = upgradedSkills
	}
	return out
}

func interfaces03(card map[string]any) []any {
	version := card["protocolVersion"]
	primaryURL := card["url"]
	primary, ok := card["preferredTransport"].(string)
	if !ok {
		primary = string(defaultTransport03)
	}
	out := []any{map[string]any{"url": primaryURL, "protocolBinding": primary, "protocolVersion": version}}
	extra, _ := card["additionalInterfaces"].([]any)
	for _, e := range extra {
		iface := e.(map[string]any)
		if iface["url"] == primaryURL && iface["transport"] == primary {
			continue
		}
		out = append(out, map[string]any{"url": iface["url"], "protocolBinding": iface["transport"], "protocolVersion": version})
	}
	return out
}

func requirements03(security any) []any {
	list, ok := security.([]any)
	if !ok {
		return nil
	}
	out := make([]any, len(list))
	for i, r := range list {
		out[i] = map[string]any{"schemes": r}
	}
	return out
}

func scheme03(s map[string]any) map[string]any {
	pick := func(keys ...string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			if v, ok := s[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	switch s["type"] {
	case "apiKey":
		inner := pick("description", "name")
		inner["location"] = s["in"]
		return map[string]any{"apiKeySecurityScheme": inner}
	case "http":
		return map[string]any{"httpAuthSecurityScheme": pick("description", "scheme", "bearerFormat")}
	case "oauth2":
		inner := pick("description", "oauth2MetadataUrl")
		flows, _ := s["flows"].(map[string]any)
		for _, name := range oauthFlowOrder {
			if f, ok := flows[name]; ok && f != nil {
				inner["flows"] = map[string]any{name: f}
				break
			}
		}
		return map[string]any{"oauth2SecurityScheme": inner}
	case "openIdConnect":
		return map[string]any{"openIdConnectSecurityScheme": pick("description", "openIdConnectUrl")}
	default:
		return map[string]any{"mtlsSecurityScheme": pick("description")}
	}
}
