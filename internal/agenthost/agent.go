package agenthost

import (
	"context"
	"fmt"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// capabilities are the optional A2A features this host implements. The SDK
// enforces them, so a client asking for anything else gets the error the
// specification prescribes (PushNotificationNotSupported, UnsupportedOperation),
// and the derived card must declare exactly these.
var capabilities = a2a.AgentCapabilities{Streaming: true}

// capabilitiesOf are those of the host of cfg: the extended card only when
// it lists skills the public one does not.
func capabilitiesOf(cfg *agentconfig.Config) a2a.AgentCapabilities {
	c := capabilities
	c.ExtendedAgentCard = cfg.HasExtendedSkills()
	return c
}

// newAgent returns the executor for the configured handler type.
func newAgent(cfg *agentconfig.Config, redact *redactor) (a2asrv.AgentExecutor, error) {
	switch cfg.Handler.Type {
	case agentconfig.HandlerEcho:
		return echoAgent{asTask: cfg.Handler.Echo.Reply != agentconfig.EchoReplyMessage}, nil
	case agentconfig.HandlerLLM:
		return newLLMAgent(cfg.Handler.LLM, redact)
	default:
		return nil, fmt.Errorf("handler.type %q is not one of %q, %q", cfg.Handler.Type, agentconfig.HandlerEcho, agentconfig.HandlerLLM)
	}
}

// textParts returns the text parts of a message. The card advertises
// text/plain only, so any other part is refused rather than silently dropped.
func textParts(msg *a2a.Message) ([]string, error) {
	if msg == nil || len(msg.Parts) == 0 {
		return nil, fmt.Errorf("%w: the message has no parts; send at least one text part", a2a.ErrInvalidParams)
	}
	texts := make([]string, 0, len(msg.Parts))
	for i, p := range msg.Parts {
		t, ok := p.Content.(a2a.Text)
		if !ok {
			return nil, fmt.Errorf("%w: part %d is %T; this agent accepts text parts only", a2a.ErrUnsupportedContentType, i+1, p.Content)
		}
		texts = append(texts, string(t))
	}
	return texts, nil
}

// cancelByStatus moves a task to canceled. Neither handler holds work that
// outlives its execution context, so marking the task is all cancelation takes.
type cancelByStatus struct{}

func (cancelByStatus) Cancel(_ context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, nil), nil)
	}
}

// echoAgent replies with the text it was sent: by default as a completed
// task carrying it as an artifact, so clients can get, list and subscribe
// to what they started; or as a bare message without a task.
type echoAgent struct {
	cancelByStatus
	asTask bool
}

func (e echoAgent) Execute(_ context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		texts, err := textParts(execCtx.Message)
		if err != nil {
			yield(nil, err)
			return
		}
		parts := make([]*a2a.Part, len(texts))
		for i, t := range texts {
			parts[i] = a2a.NewTextPart(t)
		}
		if !e.asTask {
			reply := a2a.NewMessage(a2a.MessageRoleAgent, parts...)
			reply.ContextID = execCtx.ContextID
			yield(reply, nil)
			return
		}
		if execCtx.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewArtifactEvent(execCtx, parts...), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCompleted, nil), nil)
	}
}
