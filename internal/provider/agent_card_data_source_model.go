package provider

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// agentCardModel is the data source's configuration and state.
type agentCardModel struct {
	ID               types.String          `tfsdk:"id"`
	URL              types.String          `tfsdk:"url"`
	Config           types.String          `tfsdk:"config"`
	Endpoint         types.String          `tfsdk:"endpoint"`
	RequestHeaders   types.Map             `tfsdk:"request_headers"`
	HeadersFromEnv   types.Map             `tfsdk:"request_headers_from_env"`
	RequestTimeoutMS types.Int64           `tfsdk:"request_timeout_ms"`
	CACertPEM        types.String          `tfsdk:"ca_cert_pem"`
	Insecure         types.Bool            `tfsdk:"insecure"`
	Retry            *retryModel           `tfsdk:"retry"`
	VerifySignature  *verifySignatureModel `tfsdk:"verify_signature"`

	CardURL            types.String          `tfsdk:"card_url"`
	SpecVersion        types.String          `tfsdk:"spec_version"`
	Name               types.String          `tfsdk:"name"`
	Description        types.String          `tfsdk:"description"`
	Version            types.String          `tfsdk:"version"`
	DocumentationURL   types.String          `tfsdk:"documentation_url"`
	IconURL            types.String          `tfsdk:"icon_url"`
	DefaultInputModes  []string              `tfsdk:"default_input_modes"`
	DefaultOutputModes []string              `tfsdk:"default_output_modes"`
	Interfaces         []interfaceModel      `tfsdk:"interfaces"`
	Skills             []skillModel          `tfsdk:"skills"`
	Capabilities       *capabilitiesModel    `tfsdk:"capabilities"`
	Extensions         []extensionModel      `tfsdk:"extensions"`
	Provider           *cardProviderModel    `tfsdk:"agent_provider"`
	SecuritySchemes    []securitySchemeModel `tfsdk:"security_schemes"`
	RawJSON            types.String          `tfsdk:"raw_json"`
	Deviations         []deviationModel      `tfsdk:"deviations"`
	SignatureVerified  types.Bool            `tfsdk:"signature_verified"`
	SignatureKeyID     types.String          `tfsdk:"signature_key_id"`
}

type deviationModel struct {
	Path    string `tfsdk:"path"`
	Message string `tfsdk:"message"`
}

type retryModel struct {
	Attempts   types.Int64 `tfsdk:"attempts"`
	MinDelayMS types.Int64 `tfsdk:"min_delay_ms"`
	MaxDelayMS types.Int64 `tfsdk:"max_delay_ms"`
}

type verifySignatureModel struct {
	PublicKeysPEM []string `tfsdk:"public_keys_pem"`
}

type interfaceModel struct {
	URL             string       `tfsdk:"url"`
	ProtocolBinding string       `tfsdk:"protocol_binding"`
	ProtocolVersion string       `tfsdk:"protocol_version"`
	Tenant          types.String `tfsdk:"tenant"`
}

type skillModel struct {
	ID          string   `tfsdk:"id"`
	Name        string   `tfsdk:"name"`
	Description string   `tfsdk:"description"`
	Tags        []string `tfsdk:"tags"`
	Examples    []string `tfsdk:"examples"`
	InputModes  []string `tfsdk:"input_modes"`
	OutputModes []string `tfsdk:"output_modes"`
}

type capabilitiesModel struct {
	Streaming         bool `tfsdk:"streaming"`
	PushNotifications bool `tfsdk:"push_notifications"`
	ExtendedAgentCard bool `tfsdk:"extended_agent_card"`
}

type extensionModel struct {
	URI         string       `tfsdk:"uri"`
	Description types.String `tfsdk:"description"`
	Required    bool         `tfsdk:"required"`
	ParamsJSON  types.String `tfsdk:"params_json"`
}

type cardProviderModel struct {
	Organization string `tfsdk:"organization"`
	URL          string `tfsdk:"url"`
}

// securitySchemeModel flattens the five A2A scheme kinds into one shape;
// fields that do not apply to a kind are null.
type securitySchemeModel struct {
	Name              string       `tfsdk:"name"`
	Type              string       `tfsdk:"type"`
	Description       types.String `tfsdk:"description"`
	Scheme            types.String `tfsdk:"scheme"`
	BearerFormat      types.String `tfsdk:"bearer_format"`
	APIKeyLocation    types.String `tfsdk:"api_key_location"`
	APIKeyName        types.String `tfsdk:"api_key_name"`
	OpenIDConnectURL  types.String `tfsdk:"openid_connect_url"`
	OAuth2MetadataURL types.String `tfsdk:"oauth2_metadata_url"`
	OAuth2Flow        types.String `tfsdk:"oauth2_flow"`
}

// setCard copies a parsed card into the computed attributes.
func (m *agentCardModel) setCard(parsed *card.Parsed) error {
	c, raw := parsed.Card, parsed.Raw
	m.SpecVersion = types.StringValue(parsed.SpecVersion)
	m.Deviations = make([]deviationModel, len(parsed.Deviations))
	for i, d := range parsed.Deviations {
		m.Deviations[i] = deviationModel{Path: d.Path, Message: d.Message}
	}
	m.Name = types.StringValue(c.Name)
	m.Description = types.StringValue(c.Description)
	m.Version = types.StringValue(c.Version)
	m.DocumentationURL = optionalString(c.DocumentationURL)
	m.IconURL = optionalString(c.IconURL)
	m.DefaultInputModes = c.DefaultInputModes
	m.DefaultOutputModes = c.DefaultOutputModes
	m.RawJSON = types.StringValue(string(raw))

	m.Interfaces = make([]interfaceModel, 0, len(c.SupportedInterfaces))
	for _, i := range c.SupportedInterfaces {
		if i == nil {
			continue
		}
		m.Interfaces = append(m.Interfaces, interfaceModel{
			URL:             i.URL,
			ProtocolBinding: string(i.ProtocolBinding),
			ProtocolVersion: string(i.ProtocolVersion),
			Tenant:          optionalString(i.Tenant),
		})
	}

	m.Skills = make([]skillModel, 0, len(c.Skills))
	for _, s := range c.Skills {
		m.Skills = append(m.Skills, skillModel{
			ID: s.ID, Name: s.Name, Description: s.Description,
			Tags: s.Tags, Examples: s.Examples, InputModes: s.InputModes, OutputModes: s.OutputModes,
		})
	}

	m.Capabilities = &capabilitiesModel{
		Streaming:         c.Capabilities.Streaming,
		PushNotifications: c.Capabilities.PushNotifications,
		ExtendedAgentCard: c.Capabilities.ExtendedAgentCard,
	}

	m.Extensions = make([]extensionModel, 0, len(c.Capabilities.Extensions))
	for _, e := range c.Capabilities.Extensions {
		params := types.StringNull()
		if e.Params != nil {
			encoded, err := json.Marshal(e.Params)
			if err != nil {
				return fmt.Errorf("extension %q has params that cannot be encoded as JSON: %w", e.URI, err)
			}
			params = types.StringValue(string(encoded))
		}
		m.Extensions = append(m.Extensions, extensionModel{
			URI: e.URI, Description: optionalString(e.Description), Required: e.Required, ParamsJSON: params,
		})
	}

	m.Provider = nil
	if c.Provider != nil {
		m.Provider = &cardProviderModel{Organization: c.Provider.Org, URL: c.Provider.URL}
	}

	m.SecuritySchemes = securitySchemes(c.SecuritySchemes)
	return nil
}

// securitySchemes lists the named schemes sorted by name, so that the
// attribute is stable whatever order the card's JSON object had.
func securitySchemes(named a2a.NamedSecuritySchemes) []securitySchemeModel {
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, string(n))
	}
	sort.Strings(names)
	out := make([]securitySchemeModel, 0, len(names))
	for _, n := range names {
		s := securitySchemeModel{
			Name: n, Description: types.StringNull(), Scheme: types.StringNull(), BearerFormat: types.StringNull(),
			APIKeyLocation: types.StringNull(), APIKeyName: types.StringNull(), OpenIDConnectURL: types.StringNull(),
			OAuth2MetadataURL: types.StringNull(), OAuth2Flow: types.StringNull(),
		}
		switch v := named[a2a.SecuritySchemeName(n)].(type) {
		case a2a.HTTPAuthSecurityScheme:
			s.Type, s.Description = "http", optionalString(v.Description)
			s.Scheme, s.BearerFormat = types.StringValue(v.Scheme), optionalString(v.BearerFormat)
		case a2a.APIKeySecurityScheme:
			s.Type, s.Description = "apiKey", optionalString(v.Description)
			s.APIKeyLocation, s.APIKeyName = types.StringValue(string(v.Location)), types.StringValue(v.Name)
		case a2a.OpenIDConnectSecurityScheme:
			s.Type, s.Description = "openIdConnect", optionalString(v.Description)
			s.OpenIDConnectURL = types.StringValue(v.OpenIDConnectURL)
		case a2a.MutualTLSSecurityScheme:
			s.Type, s.Description = "mutualTLS", optionalString(v.Description)
		case a2a.OAuth2SecurityScheme:
			s.Type, s.Description = "oauth2", optionalString(v.Description)
			s.OAuth2MetadataURL, s.OAuth2Flow = optionalString(v.Oauth2MetadataURL), types.StringValue(oauth2FlowName(v.Flows))
		}
		out = append(out, s)
	}
	return out
}

func oauth2FlowName(flow a2a.OAuthFlows) string {
	switch flow.(type) {
	case a2a.AuthorizationCodeOAuthFlow:
		return string(a2a.AuthorizationCodeOAuthFlowName)
	case a2a.ClientCredentialsOAuthFlow:
		return string(a2a.ClientCredentialsOAuthFlowName)
	case a2a.ImplicitOAuthFlow:
		return string(a2a.ImplicitOAuthFlowName)
	case a2a.PasswordOAuthFlow:
		return string(a2a.PasswordOAuthFlowName)
	case a2a.DeviceCodeOAuthFlow:
		return string(a2a.DeviceCodeOAuthFlowName)
	}
	return ""
}

// optionalString maps the card's "absent" (empty) to null.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
