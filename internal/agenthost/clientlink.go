package agenthost

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// clientKey carries the context of the request that is waiting for a
// task's result into the task's execution.
type clientKey struct{}

// clientLink lets an execution see whether the client that started it is
// still waiting. The SDK runs executions detached from the request, so
// that a task outlives a client that asked to be answered at once; but a
// client that waits (a blocking send or a stream) and goes away leaves
// nobody for the work, and costly work such as a model call should stop.
type clientLink struct {
	a2asrv.PassthroughCallInterceptor
}

func (clientLink) Before(ctx context.Context, callCtx *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	switch callCtx.Method() {
	case "SendMessage", "SendStreamingMessage":
	default:
		return ctx, nil, nil
	}
	if send, ok := req.Payload.(*a2a.SendMessageRequest); ok && send.Config != nil && send.Config.ReturnImmediately {
		return ctx, nil, nil
	}
	return context.WithValue(ctx, clientKey{}, ctx), nil, nil
}

// whileClientWaits returns a context that also ends when the client that
// started the execution goes away, if one is waiting for it.
func whileClientWaits(ctx context.Context) (context.Context, context.CancelFunc) {
	client, ok := ctx.Value(clientKey{}).(context.Context)
	if !ok {
		return context.WithCancel(ctx)
	}
	linked, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(client, cancel)
	return linked, func() { stop(); cancel() }
}
