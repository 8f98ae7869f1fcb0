package card

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// CardProtocolVersion03 is the protocolVersion a card names for its 0.3
// clients: the 0.3 schema's own form of the version (Major.Minor.Patch),
// which 0.3 agents publish.
const CardProtocolVersion03 = "0.3.0"

// schemeTypes03 maps the 1.0 security scheme wrappers to the type a 0.3
// scheme names itself by.
var schemeTypes03 = map[string]string{
	"apiKeySecurityScheme":        "apiKey",
	"httpAuthSecurityScheme":      "http",
	"oauth2SecurityScheme":        "oauth2",
	"openIdConnectSecurityScheme": "openIdConnect",
	"mtlsSecurityScheme":          "mutualTLS",
}

// add03Fields writes into obj, the 1.0 JSON of c, the fields a 0.3 client
// reads in their place, when c declares a 0.3 interface: url,
// preferredTransport and protocolVersion from the first such interface,
// every one of them in additionalInterfaces (the 0.3 schema asks for the
// main one to be listed too), security next to each securityRequirements,
// supportsAuthenticatedExtendedCard, and, inside each security scheme next
// to its 1.0 wrapper, the 0.3 type and fields. This is the combined card
// the official SDK publishes for both versions (a2av0's card producer),
// except that a scheme keeps its 1.0 wrapper under the proto's name, which
// 1.0 readers look for. A card without a 0.3 interface is left as it is:
// it does not claim to serve 0.3 clients. 1.0 readers ignore the extra
// fields, as the specification asks of unrecognised fields (section 5.7).
func add03Fields(obj map[string]any, c *a2a.AgentCard) {
	var ifaces []*a2a.AgentInterface
	for _, iface := range c.SupportedInterfaces {
		// 0.3 has no tenant: a client told only the URL would call the
		// interface without the tenant it needs.
		if iface != nil && is03(iface.ProtocolVersion) && iface.Tenant == "" {
			ifaces = append(ifaces, iface)
		}
	}
	if len(ifaces) == 0 {
		return
	}
	obj["url"] = ifaces[0].URL
	obj["preferredTransport"] = string(ifaces[0].ProtocolBinding)
	obj["protocolVersion"] = CardProtocolVersion03
	additional := make([]any, len(ifaces))
	for i, iface := range ifaces {
		additional[i] = map[string]any{"url": iface.URL, "transport": string(iface.ProtocolBinding)}
	}
	obj["additionalInterfaces"] = additional
	if reqs := security03(c.SecurityRequirements); reqs != nil {
		obj["security"] = reqs
	}
	if c.Capabilities.ExtendedAgentCard {
		obj["supportsAuthenticatedExtendedCard"] = true
	}
	skills, _ := obj["skills"].([]any)
	for i, s := range skills {
		skill, _ := s.(map[string]any)
		if reqs := security03(c.Skills[i].SecurityRequirements); skill != nil && reqs != nil {
			skill["security"] = reqs
		}
	}
	schemes, _ := obj["securitySchemes"].(map[string]any)
	for _, s := range schemes {
		if scheme, ok := s.(map[string]any); ok {
			addScheme03(scheme)
		}
	}
}

// is03 reports whether an interface's protocol version is 0.3, written as
// 1.0 cards do (Major.Minor) or with a patch number.
func is03(v a2a.ProtocolVersion) bool {
	return v == CompatProtocolVersion || strings.HasPrefix(string(v), string(CompatProtocolVersion)+".")
}

// security03 writes security requirements as 0.3 does: scheme names to
// bare scope lists.
func security03(reqs a2a.SecurityRequirementsOptions) []any {
	if len(reqs) == 0 {
		return nil
	}
	out := make([]any, len(reqs))
	for i, r := range reqs {
		schemes := make(map[string]any, len(r))
		for name, scopes := range r {
			list := make([]any, len(scopes))
			for j, s := range scopes {
				list[j] = s
			}
			schemes[string(name)] = list
		}
		out[i] = schemes
	}
	return out
}

// addScheme03 adds to a 1.0 security scheme ({"<kind>SecurityScheme":
// {...}}) the 0.3 type and the wrapper's fields beside it, the API key's
// location named "in" as 0.3 names it. It is the reverse of scheme03.
func addScheme03(scheme map[string]any) {
	for wrapper, kind := range schemeTypes03 {
		inner, ok := scheme[wrapper].(map[string]any)
		if !ok {
			continue
		}
		scheme["type"] = kind
		for k, v := range inner {
			if k == "location" {
				k = "in"
			}
			scheme[k] = v
		}
		return
	}
}
