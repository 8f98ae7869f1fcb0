// Package card derives, parses, validates and signs A2A Agent Cards.
package card

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// WellKnownPath is where an agent publishes its card.
const WellKnownPath = "/.well-known/agent-card.json"

// LegacyWellKnownPath is where clients written before A2A 0.3 renamed the
// card (and resolvers that still fall back to it) look for the card.
const LegacyWellKnownPath = "/.well-known/agent.json"

// CardURL returns where the agent whose JSON-RPC endpoint is endpoint
// publishes its card: the well-known path below the endpoint's own path,
// so that "http://h:1/" and "http://h:1" name the same card.
func CardURL(endpoint string) string { return CardURLAt(endpoint, WellKnownPath) }

// CardURLAt returns the URL of the card an agent whose endpoint is
// endpoint serves at path below it, such as a brought agent's card_path.
func CardURLAt(endpoint, path string) string {
	u, err := url.JoinPath(endpoint, path)
	if err != nil {
		return strings.TrimRight(endpoint, "/") + path
	}
	return u
}

// ProvenanceExtensionURI identifies the card extension that names the agent
// config a card was derived from. Its params hold "configSha256", the hex
// sha256 of the raw config, so two cards with the same name and version but
// different configs can be told apart.
const ProvenanceExtensionURI = "https://github.com/a2a-terraform/terraform-provider-a2a/extensions/provenance/v1"

// SkillExtensionURI identifies the card extension by which a message names
// the skill it asks for: the skill's id, a string, in the message's
// metadata under this URI. An agent whose skills need scopes declares it,
// and checks the caller's token against the scopes of the skill a message
// names (of some skill, where it names none).
const SkillExtensionURI = "https://github.com/a2a-terraform/terraform-provider-a2a/extensions/skill/v1"

// DefaultVersion is the card version of an agent whose config names none:
// the proto requires a version, and 0.0.0 says plainly that none was given.
const DefaultVersion = "0.0.0"

// DefaultMode is the media type an agent accepts and produces when its
// config names none: the built-in handlers speak plain text.
const DefaultMode = "text/plain"

// BearerSchemeName names the security scheme of an agent with
// [auth] bearer_token.
const BearerSchemeName = "bearer"

// JWTSchemeName names the security scheme of an agent with [auth.jwt].
const JWTSchemeName = "jwt"

// jwtSchemeDescription tells a client which tokens the agent accepts: the
// issuer, audiences and scopes are what it asks its identity provider for.
func jwtSchemeDescription(j *agentconfig.JWT) string {
	d := fmt.Sprintf("Send a JWT issued by %s for the audience %s in the Authorization header (gRPC: the authorization metadata) of every call",
		j.Issuer, strings.Join(j.Audiences, " or "))
	if len(j.RequiredScopes) > 0 {
		d += ", with the scopes " + strings.Join(j.RequiredScopes, " ")
	}
	return d + "."
}

// CompatProtocolVersion is the earlier protocol version the built-in host
// also serves, for clients not yet on 1.0.
const CompatProtocolVersion a2a.ProtocolVersion = "0.3"

// Derive builds the card the agent host publishes for cfg at endpoint (the
// advertised base URL, where JSON-RPC is served). Capabilities claim only
// what the host implements: streaming, no push notifications, no extended
// card. Where the config leaves a field the proto requires empty, Derive
// fills it: the description falls back to the agent name, the version to
// DefaultVersion, a skill's description to the agent's description and its
// tags to its id; a config without skills advertises one skill named after
// the agent. The card is not signed; see Sign.
func Derive(cfg *agentconfig.Config, endpoint string) (*a2a.AgentCard, error) {
	return derive(cfg, endpoint, false)
}

// DeriveExtended derives the extended card the host gives authenticated
// callers: the public card with the extended skills too.
func DeriveExtended(cfg *agentconfig.Config, endpoint string) (*a2a.AgentCard, error) {
	return derive(cfg, endpoint, true)
}

func derive(cfg *agentconfig.Config, endpoint string, extended bool) (*a2a.AgentCard, error) {
	if cfg.Runtime.Brought() {
		return nil, errors.New("the agent runs from [runtime] command or image and serves its own card, which only the running agent knows: read it by its url instead")
	}
	if err := checkEndpoint(endpoint); err != nil {
		return nil, err
	}
	description := firstSet(cfg.Agent.Description, cfg.Agent.Name)
	card := &a2a.AgentCard{
		Name:                cfg.Agent.Name,
		Description:         description,
		Version:             firstSet(cfg.Agent.Version, DefaultVersion),
		SupportedInterfaces: Interfaces(cfg.Server.ServedBindings(), endpoint),
		DocumentationURL:    cfg.Agent.DocumentationURL,
		Capabilities: a2a.AgentCapabilities{
			Streaming:         true,
			ExtendedAgentCard: cfg.HasExtendedSkills(),
			Extensions: []a2a.AgentExtension{{
				URI:         ProvenanceExtensionURI,
				Description: "Names the agent config this card was derived from.",
				Params:      map[string]any{"configSha256": cfg.SHA256()},
			}},
		},
		DefaultInputModes:  []string{DefaultMode},
		DefaultOutputModes: []string{DefaultMode},
		Skills:             deriveSkills(cfg, description, extended),
	}
	if cfg.HasSkillScopes() {
		card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{
			URI: SkillExtensionURI,
			Description: "Name the skill a message asks for in the message's metadata under this URI (the skill's id). " +
				"The token must hold the scopes of that skill, or, where a message names none, of one of the skills.",
			Params: map[string]any{"metadataKey": SkillExtensionURI},
		})
	}
	if err := cfg.Agent.Provider.Check(); err != nil {
		return nil, fmt.Errorf("agent config: %w", err)
	}
	if p := cfg.Agent.Provider; p != nil {
		card.Provider = &a2a.AgentProvider{Org: p.Organization, URL: p.URL}
	}
	if cfg.Auth.BearerToken != "" {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{
			BearerSchemeName: a2a.HTTPAuthSecurityScheme{
				Scheme:      "Bearer",
				Description: "Send the agent's bearer token in the Authorization header (gRPC: the authorization metadata) of every call.",
			},
		}
		card.SecurityRequirements = a2a.SecurityRequirementsOptions{{BearerSchemeName: a2a.SecuritySchemeScopes{}}}
	}
	if j := cfg.Auth.JWT; j != nil {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{
			JWTSchemeName: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT", Description: jwtSchemeDescription(j)},
		}
		card.SecurityRequirements = a2a.SecurityRequirementsOptions{{JWTSchemeName: a2a.SecuritySchemeScopes{}}}
	}
	return card, nil
}

// Interfaces lists what the host serves at endpoint, in order of
// preference: each of bindings for 1.0 and then, at the same URLs, each for
// 0.3 (specification, section 3.6.2). JSON-RPC is served at the endpoint
// and HTTP+JSON below it; gRPC, whose paths are fixed by its service names,
// at the endpoint's host and port, written as gRPC clients dial a target.
func Interfaces(bindings []string, endpoint string) []*a2a.AgentInterface {
	out := make([]*a2a.AgentInterface, 0, 2*len(bindings))
	for _, version := range []a2a.ProtocolVersion{a2a.Version, CompatProtocolVersion} {
		for _, b := range bindings {
			url := endpoint
			if b == agentconfig.BindingGRPC {
				url = GRPCTarget(endpoint)
			}
			out = append(out, &a2a.AgentInterface{URL: url, ProtocolBinding: a2a.TransportProtocol(b), ProtocolVersion: version})
		}
	}
	return out
}

// GRPCTarget is the host:port a gRPC client dials for an agent whose
// endpoint is endpoint, the scheme's port made explicit.
func GRPCTarget(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func deriveSkills(cfg *agentconfig.Config, agentDescription string, extended bool) []a2a.AgentSkill {
	if len(cfg.Skills) == 0 {
		return []a2a.AgentSkill{{
			ID:          cfg.ID(),
			Name:        cfg.Agent.Name,
			Description: agentDescription,
			Tags:        []string{cfg.Handler.Type},
		}}
	}
	skills := make([]a2a.AgentSkill, 0, len(cfg.Skills))
	for _, s := range cfg.Skills {
		if s.Extended && !extended {
			continue
		}
		tags := s.Tags
		if len(tags) == 0 {
			tags = []string{s.ID}
		}
		skill := a2a.AgentSkill{
			ID:          s.ID,
			Name:        firstSet(s.Name, s.ID),
			Description: firstSet(s.Description, agentDescription),
			Tags:        tags,
			Examples:    s.Examples,
			InputModes:  s.InputModes,
			OutputModes: s.OutputModes,
		}
		if len(s.Scopes) > 0 {
			skill.SecurityRequirements = a2a.SecurityRequirementsOptions{{JWTSchemeName: a2a.SecuritySchemeScopes(s.Scopes)}}
		}
		skills = append(skills, skill)
	}
	return skills
}

// EndpointFor returns the URL an agent advertises: server.advertised_url if
// set, else http://host:port from server.http_port and server.host, made
// reachable (see ReachableHost). With
// neither an advertised URL nor a port the endpoint is not known until the
// runtime allocates a port, and EndpointFor returns "": callers then pass
// the URL the agent actually listens on.
func EndpointFor(cfg *agentconfig.Config) string {
	return Endpoint(cfg.Server.AdvertisedURL, cfg.ListenHost(), cfg.Server.HTTPPort)
}

// Endpoint is the base URL clients reach an agent at: advertisedURL when
// set, else http://host:port with an unspecified host made reachable; empty
// when neither an advertised URL nor a port is known. Every adapter and the
// agent host derive the endpoint here, and the card URL from it with
// CardURL, so that they agree on both whatever the advertised URL's form
// (such as a trailing slash).
func Endpoint(advertisedURL, host string, port int) string {
	if advertisedURL != "" {
		return advertisedURL
	}
	if port == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort(ReachableHost(host), strconv.Itoa(port))
}

// ReachableHost is the host clients reach an agent listening on host at:
// an agent listening on every address (0.0.0.0 or ::) is reached over
// loopback, since no client can connect to the unspecified address.
func ReachableHost(host string) string {
	addr, err := netip.ParseAddr(host)
	switch {
	case err != nil || !addr.IsUnspecified():
		return host
	case addr.Is4():
		return "127.0.0.1"
	default:
		return "::1"
	}
}

func checkEndpoint(endpoint string) error {
	if endpoint == "" {
		return errors.New("agent card needs the agent's endpoint: set server.advertised_url or server.http_port in the agent config")
	}
	if err := agentconfig.CheckHTTPURL("agent endpoint", endpoint, "http://127.0.0.1:8080/"); err != nil {
		return fmt.Errorf("%w; fix server.advertised_url in the agent config", err)
	}
	return nil
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
