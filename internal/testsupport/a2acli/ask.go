package a2acli

import (
	"context"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// plaintext lets the gRPC transport dial agents that serve gRPC without
// TLS, as the built-in host does.
var plaintext = grpc.WithTransportCredentials(insecure.NewCredentials())

// Ask sends text to the agent at endpoint through the official SDK client,
// over binding (JSONRPC, HTTPJSON or GRPC, whose endpoint is the host:port
// a gRPC client dials, over plain HTTP/2) in protocolVersion ("1.0" or "0.3"),
// and returns the text it answers with: a message's, or that of a task's
// artifacts. The endpoint is given rather than read from the agent's card,
// so that an agent whose card advertises another URL is reached all the same.
func Ask(ctx context.Context, endpoint, binding, protocolVersion, text string) (string, error) {
	iface := &a2a.AgentInterface{URL: endpoint, ProtocolBinding: a2a.TransportProtocol(binding), ProtocolVersion: a2a.ProtocolVersion(protocolVersion)}
	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface},
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
		grpcv0.WithGRPCTransport(plaintext),
		grpcv1.WithGRPCTransport(plaintext))
	if err != nil {
		return "", err
	}
	defer func() { _ = client.Destroy() }()
	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
	if err != nil {
		return "", err
	}
	return Reply(res), nil
}

// Reply is the text an agent answered a SendMessage with: its message's,
// or that of its task's artifacts.
func Reply(res a2a.SendMessageResult) string {
	var b strings.Builder
	switch r := res.(type) {
	case *a2a.Message:
		for _, p := range r.Parts {
			b.WriteString(p.Text())
		}
	case *a2a.Task:
		for _, a := range r.Artifacts {
			for _, p := range a.Parts {
				b.WriteString(p.Text())
			}
		}
	}
	return b.String()
}
