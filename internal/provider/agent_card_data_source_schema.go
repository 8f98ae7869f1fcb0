package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func agentCardSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Reads an A2A Agent Card, either fetched from a running agent (`url`) or derived offline " +
			"from an agent config (`config`) exactly as the built-in agent host would publish it. A2A 1.0 and 0.3 cards " +
			"are read; `spec_version` says which. The card is treated as untrusted input: its size is bounded, it is " +
			"validated strictly (a card that fails validation fails the read, naming every problem by its JSON path), and " +
			"its JWS signature can be verified against known public keys with `verify_signature`.",
		Attributes: agentCardAttributes(),
		Blocks: map[string]schema.Block{
			"retry": schema.SingleNestedBlock{
				MarkdownDescription: "How to retry fetching the card. Connection failures, `429` and `5xx` answers are " +
					"retried; other answers are final. A `Retry-After` header on `429` or `503` is honoured up to " +
					"`max_delay_ms`. Only with `url`.",
				Attributes: map[string]schema.Attribute{
					"attempts": schema.Int64Attribute{
						MarkdownDescription: "How many times to try in all, the first attempt included. Defaults to `3`; `1` disables retries.",
						Optional:            true,
						Validators:          []validator.Int64{int64validator.AtLeast(1)},
					},
					"min_delay_ms": schema.Int64Attribute{
						MarkdownDescription: "The wait before the first retry, in milliseconds; later waits double. Defaults to `200`.",
						Optional:            true,
						Validators:          []validator.Int64{int64validator.AtLeast(0)},
					},
					"max_delay_ms": schema.Int64Attribute{
						MarkdownDescription: "The longest wait between attempts, in milliseconds, including a server's `Retry-After`. " +
							"Defaults to `2000`; must not be less than `min_delay_ms`.",
						Optional: true,
						Validators: []validator.Int64{
							int64validator.AtLeast(0),
							int64validator.AtLeastSumOf(path.MatchRoot("retry").AtName("min_delay_ms")),
						},
					},
				},
			},
			"verify_signature": schema.SingleNestedBlock{
				// Attributes of a block cannot be required; its validators
				// run only when the block is there.
				Validators: []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("public_keys_pem"))},
				MarkdownDescription: "Verify the card's JWS signature (RFC 7515 over the RFC 8785 canonical card) against " +
					"these keys. A card with no signature, or whose signatures no key verifies, fails the read. Only with `url`.",
				Attributes: map[string]schema.Attribute{
					"public_keys_pem": schema.ListAttribute{
						MarkdownDescription: "**Required** in the block. PEM-encoded public keys (`PUBLIC KEY` blocks: EC, RSA or " +
							"Ed25519) that may have signed the card. A private key is refused at plan: pass its public key " +
							"(`openssl pkey -pubout`).",
						ElementType: types.StringType,
						Optional:    true,
						Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
					},
				},
			},
		},
	}
}

func agentCardAttributes() map[string]schema.Attribute {
	optionalStringAttr := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Optional: true}
	}
	computedString := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	computedStrings := func(description string) schema.ListAttribute {
		return schema.ListAttribute{MarkdownDescription: description, Computed: true, ElementType: types.StringType}
	}
	return map[string]schema.Attribute{
		"url": optionalStringAttr("The agent's base URL, such as `http://127.0.0.1:8080`, to which `" +
			"/.well-known/agent-card.json` is appended; or the card's own URL, used as is when its path ends in " +
			"`agent-card.json` or lies under `/.well-known/`. Exactly one of `url` and `config` is required. " +
			"Must be an absolute `http://` or `https://` URL, checked when the card is read."),
		"config": optionalStringAttr("An agent config (TOML, as given to `a2a_agent`) to derive the card from, offline: the card " +
			"the built-in agent host would publish for it. `${VAR}` references are left as written, since the agent host " +
			"expands them only when it starts; the card is not signed. Exactly one of `url` and `config` is required."),
		"endpoint": optionalStringAttr("With `config`: the URL the agent advertises, overriding the one the config implies " +
			"(`server.advertised_url`, else `http://host:http_port`). Needed when the config leaves the port to the runtime. " +
			"Must be an absolute `http://` or `https://` URL, checked when the card is derived."),
		"request_headers": schema.MapAttribute{
			MarkdownDescription: "Headers to send with the request, by name. Their values are never shown in plans or " +
				"written to logs, but like every argument of a data source they **are stored in Terraform state in clear " +
				"text**: put credentials such as an `Authorization` header in `request_headers_from_env` instead. A redirect to " +
				"another origin (scheme, host or port) drops this and `request_headers_from_env`: they are sent only to the agent `url` names. Only with `url`.",
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
		},
		"request_headers_from_env": schema.MapAttribute{
			MarkdownDescription: "Headers to send with the request whose values the provider reads from its own " +
				"environment when it fetches the card: header name → environment variable name, such as " +
				"`{ Authorization = \"AGENT_CARD_AUTHORIZATION\" }`. Only the variable names are stored in state; the " +
				"values never reach state, plans or logs. A variable that is not set fails the read, naming it. A header " +
				"may not be named in both this and `request_headers`. Only with `url`.\n\n" +
				"**Any variable** of the environment Terraform runs in can be named, and its value goes to whatever `url` " +
				"says: a data source in a module can send your cloud credentials or `TF_VAR_...` values to a server of its " +
				"choosing, with nothing in the plan showing a value. Review the modules you use, and set " +
				"`card_header_env_allowlist` in the provider block to name the variables that may be sent, and to which " +
				"origins. A redirect to another origin drops the header.",
			ElementType: types.StringType,
			Optional:    true,
			Validators:  []validator.Map{mapvalidator.ValueStringsAre(envNameValidator())},
		},
		"request_timeout_ms": schema.Int64Attribute{
			MarkdownDescription: "How long one attempt may take, in milliseconds. Defaults to `10000`. Only with `url`.",
			Optional:            true,
			Validators:          []validator.Int64{int64validator.AtLeast(1)},
		},
		"ca_cert_pem": optionalStringAttr("PEM-encoded CA certificate(s) to trust, in addition to the system's, when the " +
			"agent serves HTTPS with a private CA. Only with `url`."),
		"insecure": schema.BoolAttribute{
			MarkdownDescription: "Skip verification of the agent's TLS certificate. For tests only: anyone on the path can " +
				"then serve a card of their choosing. Only with `url`.",
			Optional: true,
		},

		"id":       computedString("The card URL with `url`; the config's SHA-256 (hex) with `config`."),
		"card_url": computedString("The URL the card was fetched from, after any redirects, or, with `config`, where the agent host would serve it."),
		"spec_version": computedString("The A2A specification version the card follows: `1.0`, or `0.3` for a card in " +
			"the 0.3 format."),
		"name":                 computedString("The agent's name."),
		"description":          computedString("What the agent does."),
		"version":              computedString("The agent's own version."),
		"documentation_url":    computedString("Where the agent's documentation is, if the card says."),
		"icon_url":             computedString("The agent's icon, if the card names one."),
		"default_input_modes":  computedStrings("Media types the agent accepts, unless a skill says otherwise."),
		"default_output_modes": computedStrings("Media types the agent produces, unless a skill says otherwise."),
		"interfaces": schema.ListNestedAttribute{
			MarkdownDescription: "Where and how the agent is reached, in the card's order of preference.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"url":              computedString("The interface's URL."),
				"protocol_binding": computedString("The transport, such as `JSONRPC`, `GRPC` or `HTTP+JSON`."),
				"protocol_version": computedString("The A2A protocol version served there, such as `1.0`."),
				"tenant":           computedString("The tenant to address, if the interface is shared."),
			}},
		},
		"skills": schema.ListNestedAttribute{
			MarkdownDescription: "What the agent can do.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":           computedString("The skill's id."),
				"name":         computedString("The skill's name."),
				"description":  computedString("What the skill does."),
				"tags":         computedStrings("Keywords describing the skill."),
				"examples":     computedStrings("Example prompts the skill handles."),
				"input_modes":  computedStrings("Media types the skill accepts, overriding `default_input_modes`."),
				"output_modes": computedStrings("Media types the skill produces, overriding `default_output_modes`."),
			}},
		},
		"capabilities": schema.SingleNestedAttribute{
			MarkdownDescription: "Optional protocol features the agent declares.",
			Computed:            true,
			Attributes: map[string]schema.Attribute{
				"streaming":           schema.BoolAttribute{MarkdownDescription: "Whether the agent streams responses.", Computed: true},
				"push_notifications":  schema.BoolAttribute{MarkdownDescription: "Whether the agent sends push notifications.", Computed: true},
				"extended_agent_card": schema.BoolAttribute{MarkdownDescription: "Whether an authenticated client can get an extended card.", Computed: true},
			},
		},
		"extensions": schema.ListNestedAttribute{
			MarkdownDescription: "Protocol extensions the agent supports.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"uri":         computedString("The extension's URI."),
				"description": computedString("How the agent uses the extension."),
				"required": schema.BoolAttribute{
					MarkdownDescription: "Whether clients must understand the extension to talk to the agent.",
					Computed:            true,
				},
				"params_json": computedString("The extension's parameters as JSON; decode with `jsondecode`."),
			}},
		},
		"agent_provider": schema.SingleNestedAttribute{
			MarkdownDescription: "The organisation offering the agent (the card's `provider`), if the card names one.",
			Computed:            true,
			Attributes: map[string]schema.Attribute{
				"organization": computedString("The organisation's name."),
				"url":          computedString("The organisation's website."),
			},
		},
		"security_schemes": schema.ListNestedAttribute{
			MarkdownDescription: "How clients authenticate, sorted by scheme name. Fields that do not apply to a scheme's type are null.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":                computedString("The scheme's name, as security requirements refer to it."),
				"type":                computedString("One of `http`, `apiKey`, `oauth2`, `openIdConnect` and `mutualTLS`."),
				"description":         computedString("The scheme's description."),
				"scheme":              computedString("For `http`: the HTTP authentication scheme, such as `Bearer`."),
				"bearer_format":       computedString("For `http`: a hint at the bearer token's format, such as `JWT`."),
				"api_key_location":    computedString("For `apiKey`: where the key goes: `header`, `query` or `cookie`."),
				"api_key_name":        computedString("For `apiKey`: the header, query parameter or cookie name."),
				"openid_connect_url":  computedString("For `openIdConnect`: the OpenID Connect discovery URL."),
				"oauth2_metadata_url": computedString("For `oauth2`: the authorization server's metadata URL (RFC 8414)."),
				"oauth2_flow": computedString("For `oauth2`: the flow, one of `authorizationCode`, `clientCredentials`, " +
					"`deviceCode`, `implicit` and `password`."),
			}},
		},
		"deviations": schema.ListNestedAttribute{
			MarkdownDescription: "Where the card departs from its specification version in ways that leave it usable, each " +
				"also shown as a warning: an empty description or skills list, and each property the version does not define, " +
				"such as the A2A 0.3 fields beside the 1.0 ones, which readers that follow the 1.0 schema strictly refuse. " +
				"Empty for a card that follows the specification. Check it in a postcondition to refuse such cards.",
			Computed: true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"path":    computedString("The JSON path of the departure, such as `$.skills` or `$.url`."),
				"message": computedString("What departs from the specification, and what it means for clients."),
			}},
		},
		"raw_json": computedString("The card as served (or, with `config`, as the agent host would serve it), for " +
			"anything the attributes do not cover; decode with `jsondecode`."),
		"signature_verified": schema.BoolAttribute{
			MarkdownDescription: "Whether `verify_signature` verified the card's signature. False when no verification was asked for.",
			Computed:            true,
		},
		"signature_key_id": computedString("The `kid` of the signature that verified, when `verify_signature` is set."),
	}
}
