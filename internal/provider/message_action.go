package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentcall"
)

// messageAction is a2a_message: one message to an agent, its reply shown
// as the action's progress. It is a smoke test an apply can run after
// creating or updating an agent, failing the apply when the agent does not
// answer.
type messageAction struct{}

var _ action.Action = messageAction{}

func newMessageAction() action.Action { return messageAction{} }

type messageModel struct {
	URL       types.String `tfsdk:"url"`
	Text      types.String `tfsdk:"text"`
	Headers   types.Map    `tfsdk:"headers"`
	Timeout   types.String `tfsdk:"timeout"`
	CACertPEM types.String `tfsdk:"ca_cert_pem"`
}

// replyShown bounds how much of a reply the progress shows.
const replyShown = 2000

func (messageAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_message"
}

func (messageAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Sends one message to an A2A agent over JSON-RPC (`SendMessage`, A2A 1.0) and shows its reply as " +
			"the action's progress. Run it with `terraform apply -invoke=action.a2a_message.<name>`, or from an " +
			"`a2a_agent`'s `lifecycle { action_trigger { ... } }` after it is created or updated, as a smoke test that fails " +
			"the apply when the agent does not answer. Terraform 1.14 or newer.\n\n" +
			"A call is sent again only while nothing of it reached the agent (the name did not resolve, the connection was " +
			"refused, TLS failed to start), up to four attempts within `timeout`.\n\n" +
			"A call the agent read is never sent again: " +
			"when it refused it (HTTP 401, 403, 404 or another 4xx, or an A2A error saying the request was wrong or not " +
			"allowed) the error says it was refused; when no answer says what became of it (a timeout or a broken connection " +
			"after the request was written, HTTP 5xx, an internal error) the error says the agent may have acted on it. A " +
			"task that ends failed or rejected fails the action with the agent's message.\n\n" +
			"An action's arguments are not stored in Terraform state, so `headers` may carry a credential.",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{
				MarkdownDescription: "The agent's JSON-RPC endpoint, such as `a2a_agent.<name>.endpoint`: an absolute " +
					"`http://` or `https://` URL.",
				Required:   true,
				Validators: []validator.String{webURLValidator()},
			},
			"text": schema.StringAttribute{
				MarkdownDescription: "The text of the message, sent as one text part with the user role.",
				Required:            true,
			},
			"headers": schema.MapAttribute{
				MarkdownDescription: "HTTP headers to send with the message, by name, such as `{ Authorization = \"Bearer ${var.agent_token}\" }` " +
					"for an agent whose card asks for a bearer token. The provider never logs them. An action's arguments cannot " +
					"be sensitive, so Terraform prints them in `terraform plan -invoke` and in the apply that sends the message: " +
					"pass a credential through a `sensitive` variable, which Terraform shows as `(sensitive value)`.\n\n" +
					"  A credential " +
					"header (`Authorization`, `Proxy-Authorization`, `Cookie`, or one whose name says it holds a token, an API key, " +
					"a secret, a password, a session or an authentication) written literally, in a local or through a function " +
					"of literals is refused when the configuration is validated.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.Map{literalCredentialHeaders{}},
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the whole call may take, attempts included, as a duration such as `\"30s\"`. " +
					"Defaults to `\"30s\"`.",
				Optional:   true,
				Validators: []validator.String{durationValidator()},
			},
			"ca_cert_pem": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded CA certificate(s) to trust, in addition to the system's, for an agent that " +
					"serves HTTPS with a private CA.",
				Optional: true,
			},
		},
	}
}

func (messageAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m messageModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	headers := map[string]string{}
	if !m.Headers.IsNull() {
		resp.Diagnostics.Append(m.Headers.ElementsAs(ctx, &headers, false)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	timeout := durationOr(m.Timeout, agentcall.DefaultTimeout)
	tlsConfig, err := agentTLS(m.CACertPEM.ValueString(), false)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("ca_cert_pem"), "Invalid CA certificate", err.Error())
		return
	}
	target := shownURL(m.URL.ValueString())
	resp.SendProgress(action.InvokeProgressEvent{Message: "Sending a message to " + target})
	reply, err := agentcall.Send(ctx, agentcall.Request{
		URL: m.URL.ValueString(), Text: m.Text.ValueString(), Headers: headers, Timeout: timeout, TLS: tlsConfig,
	})
	var failed *agentcall.Error
	switch {
	case errors.As(err, &failed):
		tflog.Warn(ctx, "message not answered", map[string]any{"url": target, "verdict": failed.Verdict.String(), "attempts": failed.Attempts})
		resp.Diagnostics.AddError(messageFailureSummary(failed.Verdict), err.Error())
		return
	case err != nil:
		resp.Diagnostics.AddError("Cannot send the message", err.Error())
		return
	}
	tflog.Info(ctx, "message answered", map[string]any{"url": target, "task": reply.TaskID, "state": string(reply.State)})
	resp.SendProgress(action.InvokeProgressEvent{Message: replyProgress(reply)})
}

func messageFailureSummary(v agentcall.Verdict) string {
	switch v {
	case agentcall.Unsent:
		return "The message did not reach the agent"
	case agentcall.Refused:
		return "The agent refused the message"
	case agentcall.InDoubt:
		return "The message's fate is unknown"
	default:
		return "The agent's task failed"
	}
}

// replyProgress is the reply as the progress shows it, cut short when long.
func replyProgress(r agentcall.Reply) string {
	text := r.Text
	if len(text) > replyShown {
		text = text[:replyShown] + "…"
	}
	if text == "" {
		text = "(no text)"
	}
	if r.TaskID == "" {
		return "The agent answered: " + text
	}
	return fmt.Sprintf("The agent answered with task %s, %s: %s", r.TaskID, agentcall.StateName(r.State), text)
}
