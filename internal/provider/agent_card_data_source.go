package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

var (
	_ datasource.DataSourceWithConfigValidators = (*agentCardDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*agentCardDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*agentCardDataSource)(nil)
)

// NewAgentCardDataSource returns the a2a_agent_card data source.
func NewAgentCardDataSource() datasource.DataSource { return &agentCardDataSource{} }

// agentCardDataSource reads an Agent Card from a live agent or derives it
// from a config. It needs no runtime; of the provider block it heeds only
// card_header_env_allowlist.
type agentCardDataSource struct {
	headerEnv headerEnvAllowlist
}

func (d *agentCardDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	deps, diags := depsFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	if deps != nil {
		d.headerEnv = deps.cardHeaderEnv
	}
}

func (d *agentCardDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent_card"
}

func (d *agentCardDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = agentCardSchema()
}

// fetchSettings only make sense when fetching; with config they would be
// silently ignored, so they are refused instead.
var fetchSettings = []string{"request_headers", "request_headers_from_env", "request_timeout_ms", "ca_cert_pem", "insecure", "retry", "verify_signature"}

func (d *agentCardDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	validators := []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("url"), path.MatchRoot("config")),
		datasourcevalidator.Conflicting(path.MatchRoot("url"), path.MatchRoot("endpoint")),
	}
	for _, name := range fetchSettings {
		validators = append(validators, datasourcevalidator.Conflicting(path.MatchRoot("config"), path.MatchRoot(name)))
	}
	return validators
}

// ValidateConfig checks what the schema cannot express. It reads single
// values rather than whole blocks, because at validation time any of them
// may still be unknown.
func (d *agentCardDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var config types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("config"), &config)...)
	if !config.IsNull() && !config.IsUnknown() {
		// A config that does not parse is reported by Read, naming the problem.
		if cfg, err := agentconfig.Parse([]byte(config.ValueString())); err == nil {
			resp.Diagnostics.Append(literalSecretWarnings(cfg)...)
		}
	}

	var verify types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("verify_signature"), &verify)...)
	if !verify.IsNull() && !verify.IsUnknown() {
		var keys types.List
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, publicKeysPath, &keys)...)
		resp.Diagnostics.Append(privateKeyDiags(knownStrings(keys))...)
	}

	var literal, fromEnv types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("request_headers"), &literal)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("request_headers_from_env"), &fromEnv)...)
	resp.Diagnostics.Append(headersInBoth(literal, fromEnv)...)
}

func (d *agentCardDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model agentCardModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	var raw []byte
	if !model.Config.IsNull() {
		raw = model.derive(&resp.Diagnostics)
	} else {
		raw = model.fetch(ctx, d.headerEnv, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	parsed, err := card.Parse(raw)
	if err != nil {
		resp.Diagnostics.Append(invalidCardDiagnostic(shownURL(model.CardURL.ValueString()), err))
		return
	}
	if warning := cardDeviationsWarning(shownURL(model.CardURL.ValueString()), parsed); warning != nil {
		resp.Diagnostics.Append(warning)
	}
	if err := model.setCard(parsed); err != nil {
		resp.Diagnostics.AddError("Unreadable agent card", err.Error())
		return
	}

	model.verifySignature(parsed.Raw, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// derive builds the card the agent host would publish for the config, and
// returns it as the JSON the host would serve.
func (m *agentCardModel) derive(diags *diag.Diagnostics) []byte {
	cfg, err := agentconfig.Parse([]byte(m.Config.ValueString()))
	if err != nil {
		diags.AddAttributeError(path.Root("config"), "Invalid agent config", err.Error())
		return nil
	}
	endpoint := m.Endpoint.ValueString()
	if problem := webURLProblem(endpoint); endpoint != "" && problem != "" {
		diags.AddAttributeError(path.Root("endpoint"), "Invalid URL", problem)
		return nil
	}
	if endpoint == "" {
		endpoint = card.EndpointFor(cfg)
	}
	if endpoint == "" {
		diags.AddAttributeError(path.Root("endpoint"), "Agent endpoint unknown",
			"The config sets neither server.advertised_url nor server.http_port, so the URL the agent will advertise "+
				"is only known once the runtime allocates its port. Set endpoint to that URL, or set one of the two in the config.")
		return nil
	}
	derived, err := card.Derive(cfg, endpoint)
	if err != nil {
		diags.AddAttributeError(path.Root("config"), "Cannot derive the agent card", err.Error())
		return nil
	}
	raw, err := card.MarshalCard(derived, card.EncodingFor(cfg))
	if err != nil {
		diags.AddError("Cannot encode the derived agent card", err.Error())
		return nil
	}
	m.ID = types.StringValue(cfg.SHA256())
	m.CardURL = types.StringValue(card.CardURL(endpoint))
	return raw
}

// fetch gets the card from the agent named by url, sending it the headers
// from the environment that allowed lets go there.
func (m *agentCardModel) fetch(ctx context.Context, allowed headerEnvAllowlist, diags *diag.Diagnostics) []byte {
	if problem := webURLProblem(m.URL.ValueString()); problem != "" {
		diags.AddAttributeError(path.Root("url"), "Invalid URL", problem)
		return nil
	}
	cardURL, err := cardURLFor(m.URL.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("url"), "Invalid URL", err.Error())
		return nil
	}
	m.ID = types.StringValue(cardURL.String())
	m.CardURL = types.StringValue(cardURL.String())

	f := cardFetch{
		cardURL:   cardURL.String(),
		shownURL:  cardURL.Redacted(),
		timeout:   millisOr(m.RequestTimeoutMS, defaultRequestTimeout),
		attempts:  defaultAttempts,
		minDelay:  defaultMinRetryDelay,
		maxDelay:  defaultMaxRetryDelay,
		caCertPEM: m.CACertPEM.ValueString(),
		insecure:  m.Insecure.ValueBool(),
	}
	if r := m.Retry; r != nil {
		if !r.Attempts.IsNull() {
			f.attempts = int(r.Attempts.ValueInt64())
		}
		f.minDelay = millisOr(r.MinDelayMS, f.minDelay)
		f.maxDelay = max(millisOr(r.MaxDelayMS, f.maxDelay), f.minDelay)
	}
	f.headers = m.requestHeaders(ctx, allowed, cardURL, diags)
	if diags.HasError() {
		return nil
	}

	got, err := f.fetch(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("url"), "Cannot fetch the agent card", err.Error())
		return nil
	}
	// The URL the card came from, which a redirect may have changed.
	m.CardURL = types.StringValue(got.url.String())
	return got.body
}

// knownStrings returns the known elements of a list of strings, each at its
// index; unknown and null elements are empty strings.
func knownStrings(list types.List) []string {
	if list.IsNull() || list.IsUnknown() {
		return nil
	}
	out := make([]string, len(list.Elements()))
	for i, e := range list.Elements() {
		if s, ok := e.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
			out[i] = s.ValueString()
		}
	}
	return out
}

// shownURL drops any password from a URL before it reaches a message.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

func millisOr(v types.Int64, fallback time.Duration) time.Duration {
	if v.IsNull() {
		return fallback
	}
	return time.Duration(v.ValueInt64()) * time.Millisecond
}

// invalidCardDiagnostic names every problem the validator found, so that
// the agent's author can fix them all in one go.
func invalidCardDiagnostic(cardURL string, err error) diag.Diagnostic {
	var invalid *card.ValidationError
	if !errors.As(err, &invalid) {
		return diag.NewErrorDiagnostic("Unreadable agent card", fmt.Sprintf("The card at %s cannot be read: %v", cardURL, err))
	}
	lines := make([]string, len(invalid.Problems))
	for i, p := range invalid.Problems {
		lines[i] = "  - " + p.String()
	}
	return diag.NewErrorDiagnostic("Invalid agent card",
		fmt.Sprintf("The card at %s is not a valid A2A agent card (%d problems):\n%s",
			cardURL, len(invalid.Problems), strings.Join(lines, "\n")))
}
