package card

// The card model below follows message AgentCard and the messages it uses in
// the A2A 1.0 proto (REQUIRED and `optional` markings decide presence), and
// the AgentCard definition of the 0.3 JSON schema (its required lists).

var (
	str     = stringShape{}
	boolean = boolShape{}
	strs    = listShape{str}
	object  = objectShape{}
)

func req(name string, s shape) field { return field{name: name, shape: s, presence: required} }
func opt(name string, s shape) field { return field{name: name, shape: s, presence: explicit} }

// reqMayBeEmpty is a required field whose empty value is a deviation only.
func reqMayBeEmpty(name string, s shape) field {
	return field{name: name, shape: s, presence: required, emptyTolerated: true}
}
func plain(name string, s shape) field {
	return field{name: name, shape: s, presence: implicit}
}

// from03 is a property of the 0.3 card that a 1.0 card may carry too.
func from03(name string, s shape) field {
	return field{name: name, shape: s, presence: implicit, foreign: true}
}

var (
	provider = &message{fields: []field{req("url", str), req("organization", str)}}

	extension10 = &message{fields: []field{
		plain("uri", str), plain("description", str), plain("required", boolean), opt("params", object),
	}}

	capabilities10 = &message{fields: []field{
		opt("streaming", boolean), opt("pushNotifications", boolean),
		plain("extensions", listShape{extension10}), opt("extendedAgentCard", boolean),
	}}

	interface10 = &message{fields: []field{
		req("url", str), req("protocolBinding", str), plain("tenant", str), req("protocolVersion", str),
	}}

	stringList = &message{fields: []field{plain("list", strs)}}

	securityRequirement10 = &message{fields: []field{
		plain("schemes", mapShape{scopesShape{stringList}}),
	}}

	skill10 = &message{fields: []field{
		req("id", str), req("name", str), req("description", str), req("tags", strs),
		plain("examples", strs), plain("inputModes", strs), plain("outputModes", strs),
		plain("securityRequirements", listShape{securityRequirement10}),
	}}

	signature = &message{fields: []field{req("protected", str), req("signature", str), opt("header", object)}}

	scopes = mapShape{str}

	oauthFlows10 = &message{
		fields: []field{
			opt("authorizationCode", &message{fields: []field{
				req("authorizationUrl", str), req("tokenUrl", str), plain("refreshUrl", str),
				req("scopes", scopes), plain("pkceRequired", boolean),
			}}),
			opt("clientCredentials", &message{fields: []field{
				req("tokenUrl", str), plain("refreshUrl", str), req("scopes", scopes),
			}}),
			opt("implicit", &message{fields: []field{
				plain("authorizationUrl", str), plain("refreshUrl", str), plain("scopes", scopes),
			}}),
			opt("password", &message{fields: []field{
				plain("tokenUrl", str), plain("refreshUrl", str), plain("scopes", scopes),
			}}),
			opt("deviceCode", &message{fields: []field{
				req("deviceAuthorizationUrl", str), req("tokenUrl", str), plain("refreshUrl", str),
				req("scopes", scopes),
			}}),
		},
		oneOf: []string{"authorizationCode", "clientCredentials", "implicit", "password", "deviceCode"},
	}

	securityScheme10 = &message{
		fields: []field{
			opt("apiKeySecurityScheme", &message{fields: []field{
				plain("description", str), req("location", str), req("name", str),
			}}),
			opt("httpAuthSecurityScheme", &message{fields: []field{
				plain("description", str), req("scheme", str), plain("bearerFormat", str),
			}}),
			opt("oauth2SecurityScheme", &message{fields: []field{
				plain("description", str), req("flows", oauthFlows10), plain("oauth2MetadataUrl", str),
			}}),
			opt("openIdConnectSecurityScheme", &message{fields: []field{
				plain("description", str), req("openIdConnectUrl", str),
			}}),
			opt("mtlsSecurityScheme", &message{fields: []field{plain("description", str)}}),
		},
		oneOf: []string{
			"apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
			"openIdConnectSecurityScheme", "mtlsSecurityScheme",
		},
	}

	card10 = &message{
		fields: []field{
			req("name", str),
			reqMayBeEmpty("description", str),
			req("supportedInterfaces", listShape{interface10}),
			opt("provider", provider),
			req("version", str),
			opt("documentationUrl", str),
			req("capabilities", capabilities10),
			plain("securitySchemes", mapShape{securityScheme10}),
			plain("securityRequirements", listShape{securityRequirement10}),
			req("defaultInputModes", strs),
			req("defaultOutputModes", strs),
			reqMayBeEmpty("skills", listShape{skill10}),
			plain("signatures", listShape{signature}),
			opt("iconUrl", str),
			// A card may carry the 0.3 fields next to the 1.0 ones so that
			// 0.3 clients can read it too (the official SDK publishes such
			// cards): they are checked, reported as deviations, since the
			// 1.0 schema forbids them, and otherwise ignored.
			from03("url", str),
			from03("protocolVersion", str),
			from03("preferredTransport", str),
			from03("additionalInterfaces", listShape{interface03}),
			from03("security", listShape{securityRequirement03}),
			from03("supportsAuthenticatedExtendedCard", boolean),
		},
	}
)

var (
	interface03 = &message{fields: []field{req("url", str), req("transport", str)}}

	securityRequirement03 = mapShape{strs}

	extension03 = &message{fields: []field{
		req("uri", str), plain("description", str), plain("required", boolean), opt("params", object),
	}}

	capabilities03 = &message{fields: []field{
		opt("streaming", boolean), opt("pushNotifications", boolean), opt("stateTransitionHistory", boolean),
		plain("extensions", listShape{extension03}),
	}}

	skill03 = &message{fields: []field{
		req("id", str), req("name", str), req("description", str), req("tags", strs),
		plain("examples", strs), plain("inputModes", strs), plain("outputModes", strs),
		plain("security", listShape{securityRequirement03}),
	}}

	oauthFlows03 = &message{anyOf: true, oneOf: []string{"authorizationCode", "clientCredentials", "implicit", "password"}, fields: []field{
		opt("authorizationCode", &message{fields: []field{
			req("authorizationUrl", str), req("tokenUrl", str), plain("refreshUrl", str), req("scopes", scopes),
		}}),
		opt("clientCredentials", &message{fields: []field{
			req("tokenUrl", str), plain("refreshUrl", str), req("scopes", scopes),
		}}),
		opt("implicit", &message{fields: []field{
			req("authorizationUrl", str), plain("refreshUrl", str), req("scopes", scopes),
		}}),
		opt("password", &message{fields: []field{
			req("tokenUrl", str), plain("refreshUrl", str), req("scopes", scopes),
		}}),
	}}

	securityScheme03 = &message{
		fields:        []field{req("type", str), plain("description", str)},
		discriminator: "type",
		variants: map[string]*message{
			"apiKey":        {fields: []field{req("in", str), req("name", str)}},
			"http":          {fields: []field{req("scheme", str), plain("bearerFormat", str)}},
			"oauth2":        {fields: []field{req("flows", oauthFlows03), plain("oauth2MetadataUrl", str)}},
			"openIdConnect": {fields: []field{req("openIdConnectUrl", str)}},
			"mutualTLS":     {},
		},
	}

	card03 = &message{
		fields: []field{
			req("name", str),
			req("description", str),
			req("url", str),
			plain("preferredTransport", str),
			plain("additionalInterfaces", listShape{interface03}),
			req("protocolVersion", str),
			opt("provider", provider),
			req("version", str),
			plain("documentationUrl", str),
			plain("iconUrl", str),
			req("capabilities", capabilities03),
			plain("securitySchemes", mapShape{securityScheme03}),
			plain("security", listShape{securityRequirement03}),
			req("defaultInputModes", strs),
			req("defaultOutputModes", strs),
			req("skills", listShape{skill03}),
			plain("supportsAuthenticatedExtendedCard", boolean),
			plain("signatures", listShape{signature}),
		},
	}
)
