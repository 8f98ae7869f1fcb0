package agenthost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

const bindingsToken = "binding-s3cret"

// servedInterfaces resolves the host's card with the SDK's resolver, read
// with internal/card's parser (the SDK's cannot read security requirements
// in the proto's JSON form), and returns the interfaces it lists.
func servedInterfaces(t *testing.T, h *Host) []*a2a.AgentInterface {
	t.Helper()
	resolver := agentcard.NewResolver(nil)
	resolver.CardParser = strictParser
	c, err := resolver.Resolve(ctxFor(t), h.Endpoint())
	if err != nil {
		t.Fatalf("resolve the card at %s: %v", h.Endpoint(), err)
	}
	return c.SupportedInterfaces
}

// interfaceClient is an SDK client of one interface, with every transport
// the SDK has, so that the interface alone decides how it calls.
func interfaceClient(t *testing.T, iface *a2a.AgentInterface) *a2aclient.Client {
	t.Helper()
	plaintext := grpc.WithTransportCredentials(insecure.NewCredentials())
	client, err := a2aclient.NewFromEndpoints(ctxFor(t), []*a2a.AgentInterface{iface},
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
		grpcv0.WithGRPCTransport(plaintext),
		grpcv1.WithGRPCTransport(plaintext))
	if err != nil {
		t.Fatalf("client of %s %s at %s: %v", iface.ProtocolBinding, iface.ProtocolVersion, iface.URL, err)
	}
	t.Cleanup(func() { _ = client.Destroy() })
	return client
}

func ifaceName(iface *a2a.AgentInterface) string {
	return fmt.Sprintf("%s %s", iface.ProtocolBinding, iface.ProtocolVersion)
}

// TestEveryBindingServesTheSameAgent drives each interface the card lists
// through the official SDK client, on a plain, a bearer, a JWT and a
// signing host: the card lists JSON-RPC, HTTP+JSON and gRPC for 1.0 and 0.3, and
// each answers a message, a stream, a read of a task another binding made,
// an unknown task, and a subscription to a finished task (refused before
// any event), with the same auth (specification, section 5.1).
func TestEveryBindingServesTheSameAgent(t *testing.T) {
	keyPEM, _ := signingKey(t)
	t.Setenv("CARD_SIGNING_KEY", string(keyPEM))
	idp := newIssuer(t)
	hosts := []struct{ name, config, token string }{
		{"plain", echoConfig, ""},
		{"bearer", echoConfig + "\n[auth]\nbearer_token = \"" + bindingsToken + "\"\n", bindingsToken},
		{"jwt", jwtConfig(inlineKeys(idp.jwks("ec-1")), ""), idp.token("ec-1", validClaims("every-binding"))},
		{"signing", echoConfig + "\n[card]\nsigning_key = \"${CARD_SIGNING_KEY}\"\n", ""},
	}
	for _, host := range hosts {
		t.Run(host.name, func(t *testing.T) {
			h := startInProcess(t, parseConfig(t, host.config), Options{})
			ifaces := servedInterfaces(t, h)
			var listed []string
			for _, iface := range ifaces {
				listed = append(listed, ifaceName(iface))
			}
			want := []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"}
			if !slices.Equal(listed, want) {
				t.Fatalf("the card lists %q, want %q", listed, want)
			}
			ctx := withToken(t, host.token)
			first, err := interfaceClient(t, ifaces[0]).SendMessage(ctx, userText("made on JSON-RPC"))
			if err != nil {
				t.Fatal(err)
			}
			made := first.(*a2a.Task)
			for _, iface := range ifaces {
				t.Run(ifaceName(iface), func(t *testing.T) {
					client := interfaceClient(t, iface)
					res, err := client.SendMessage(ctx, userText("over "+ifaceName(iface)))
					if err != nil || resultText(res) != "over "+ifaceName(iface) {
						t.Fatalf("SendMessage: %v, %#v", err, res)
					}
					task, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: made.ID})
					if err != nil || task.Status.State != a2a.TaskStateCompleted {
						t.Errorf("GetTask of the task made on JSON-RPC: %v, %+v", err, task)
					}
					if _, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
						t.Errorf("GetTask of an unknown task: %v, want %v", err, a2a.ErrTaskNotFound)
					}
					if iface.ProtocolVersion == a2a.Version {
						wantInvalidList(ctx, t, client, iface.ProtocolBinding)
					}
					var last a2a.Event
					for event, err := range client.SendStreamingMessage(ctx, userText("streamed")) {
						if err != nil {
							t.Fatalf("SendStreamingMessage: %v", err)
						}
						last = event
					}
					if final, ok := last.(*a2a.TaskStatusUpdateEvent); ok && final.Status.State != a2a.TaskStateCompleted || last == nil {
						t.Errorf("the stream ended with %#v, want the task completed", last)
					}
					var subscribed error
					for _, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: made.ID}) {
						subscribed = err
						break
					}
					// The SDK's JSON-RPC clients end a stream answered with a
					// plain error response without reporting it, so nothing
					// comes back to check here; TestStreamStartErrorsArePlainResponses
					// reads that answer as sent, on both versions.
					if iface.ProtocolBinding != a2a.TransportProtocolJSONRPC && !errors.Is(subscribed, a2a.ErrUnsupportedOperation) {
						t.Errorf("SubscribeToTask of a completed task: first answer %v, want %v", subscribed, a2a.ErrUnsupportedOperation)
					}
					if host.token != "" {
						_, err := client.SendMessage(ctxFor(t), userText("no token"))
						// The SDK's JSON-RPC clients read no body of an
						// answer other than 200, so they report the 401
						// alone; the others name the A2A error.
						jsonRPC401 := iface.ProtocolBinding == a2a.TransportProtocolJSONRPC && err != nil && strings.Contains(err.Error(), "401")
						if !errors.Is(err, a2a.ErrUnauthenticated) && !jsonRPC401 {
							t.Errorf("SendMessage without the token: %v, want %v", err, a2a.ErrUnauthenticated)
						}
					}
				})
			}
		})
	}
}

// wantInvalidList checks that ListTasks refuses what it cannot serve, the
// same on every binding.
func wantInvalidList(ctx context.Context, t *testing.T, client *a2aclient.Client, binding a2a.TransportProtocol) {
	t.Helper()
	negative := -1
	invalid := map[string]*a2a.ListTasksRequest{
		"page size over the limit": {PageSize: 500},
		"negative history length":  {HistoryLength: &negative},
	}
	if binding != a2a.TransportProtocolGRPC {
		// gRPC's status is an enum, which the client cannot set to a
		// state it does not know.
		invalid["unknown status"] = &a2a.ListTasksRequest{Status: "TASK_STATE_LOST"}
	}
	for name, req := range invalid {
		if _, err := client.ListTasks(ctx, req); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("ListTasks with a %s: %v, want %v", name, err, a2a.ErrInvalidParams)
		}
	}
}

// TestBindingsCanBeNarrowed serves only what [server] bindings names, in
// its order, and answers 404 to the others.
func TestBindingsCanBeNarrowed(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig+"\n[server]\nbindings = [\"GRPC\", \"HTTP+JSON\"]\n"), Options{})
	var listed []string
	for _, iface := range servedInterfaces(t, h) {
		listed = append(listed, ifaceName(iface))
	}
	if want := []string{"GRPC 1.0", "HTTP+JSON 1.0", "GRPC 0.3", "HTTP+JSON 0.3"}; !slices.Equal(listed, want) {
		t.Errorf("the card lists %q, want %q", listed, want)
	}
	if res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hi"), nil); res.status != http.StatusNotFound {
		t.Errorf("JSON-RPC on a host without it: status %d, want 404", res.status)
	}
	got, err := interfaceClient(t, &a2a.AgentInterface{URL: card.GRPCTarget(h.Endpoint()), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}).
		SendMessage(ctxFor(t), userText("grpc only"))
	if err != nil || resultText(got) != "grpc only" {
		t.Errorf("gRPC: %v, %#v", err, got)
	}
}

// restError reads an HTTP+JSON error answer.
func readRESTError(t *testing.T, res httpResult) restErrorBody {
	t.Helper()
	var answer restError
	if err := json.Unmarshal(res.body, &answer); err != nil {
		t.Fatalf("answer %d %q is no HTTP+JSON error: %v", res.status, res.body, err)
	}
	return answer.Error
}

func wantRESTRefusal(t *testing.T, res httpResult, status int, kind error) restErrorBody {
	t.Helper()
	e := readRESTError(t, res)
	reason := ""
	if len(e.Details) > 0 {
		reason, _ = e.Details[0].Value["reason"].(string)
	}
	if res.status != status || e.Code != status || reason != a2a.ErrorReason(kind) || !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Errorf("answer %d %s %q, want %d with reason %s", res.status, res.header.Get("Content-Type"), res.body, status, a2a.ErrorReason(kind))
	}
	return e
}

// grpcCall calls SendMessage of the 1.0 gRPC service directly, with the
// metadata given, so that a test controls what the SDK's client would add.
func grpcCall(t *testing.T, endpoint string, md metadata.MD, text string) error {
	t.Helper()
	conn, err := grpc.NewClient(card.GRPCTarget(endpoint), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_, err = a2apb.NewA2AServiceClient(conn).SendMessage(metadata.NewOutgoingContext(ctxFor(t), md), &a2apb.SendMessageRequest{
		Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}},
	})
	return err
}

func wantGRPCStatus(t *testing.T, err error, code codes.Code, message string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), message) {
		t.Errorf("gRPC answered %v, want %s with %q", err, code, message)
	}
}

// TestBindingRefusalsTakeEachBindingsShape checks what the gate and the
// version check refuse, on HTTP+JSON and gRPC, in each binding's own
// shape: the version an interface does not speak, a missing token, a body
// over the limit, a call over the budget, and a subscription to a finished
// task, refused before its stream starts.
func TestBindingRefusalsTakeEachBindingsShape(t *testing.T) {
	v10 := http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {"1.0"}}
	t.Run("version", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{})
		send := strings.TrimSuffix(h.Endpoint(), "/") + "/message:send"
		body := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
		e := wantRESTRefusal(t, do(t, http.MethodPost, send, http.Header{"Content-Type": {"application/json"}}, body), http.StatusBadRequest, a2a.ErrVersionNotSupported)
		if !strings.Contains(e.Message, "A2A-Version: 1.0") {
			t.Errorf("refusal %q does not say which version to ask for", e.Message)
		}
		if res := do(t, http.MethodPost, send, v10, body); res.status != http.StatusOK {
			t.Errorf("with A2A-Version 1.0: %d %s", res.status, res.body)
		}
		old := strings.TrimSuffix(h.Endpoint(), "/") + "/v1/message:send"
		wantRESTRefusal(t, do(t, http.MethodPost, old, v10, body), http.StatusBadRequest, a2a.ErrVersionNotSupported)
		wantGRPCStatus(t, grpcCall(t, h.Endpoint(), metadata.Pairs("a2a-version", "0.3"), "hi"), codes.FailedPrecondition, "speaks 1.0")
		wantGRPCStatus(t, grpcCall(t, h.Endpoint(), nil, "hi"), codes.FailedPrecondition, "speaks 1.0")
		if err := grpcCall(t, h.Endpoint(), metadata.Pairs("a2a-version", "1.0"), "hi"); err != nil {
			t.Errorf("gRPC with a2a-version 1.0: %v", err)
		}
	})
	t.Run("auth", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, guardedBindingsConfig), Options{})
		tasks := strings.TrimSuffix(h.Endpoint(), "/") + "/tasks"
		res := do(t, http.MethodGet, tasks, v10, nil)
		wantRESTRefusal(t, res, http.StatusUnauthorized, a2a.ErrUnauthenticated)
		if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("WWW-Authenticate %q, want a Bearer challenge", res.header.Get("WWW-Authenticate"))
		}
		wrong := metadata.Pairs("a2a-version", "1.0", "authorization", "Bearer not-it")
		wantGRPCStatus(t, grpcCall(t, h.Endpoint(), wrong, "hi"), codes.Unauthenticated, "not valid")
		if err := grpcCall(t, h.Endpoint(), guardedMD(), "hi"); err != nil {
			t.Errorf("gRPC with the token: %v", err)
		}
		if strings.Contains(res.String(), bindingsToken) {
			t.Error("a refusal names the token")
		}
	})
	t.Run("body over the limit", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{})
		huge := strings.Repeat("x", maxRequestBytes+1)
		body, _ := json.Marshal(map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": huge}}}})
		wantRESTRefusal(t, do(t, http.MethodPost, strings.TrimSuffix(h.Endpoint(), "/")+"/message:send", v10, body), http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest)
		wantGRPCStatus(t, grpcCall(t, h.Endpoint(), metadata.Pairs("a2a-version", "1.0"), huge), codes.ResourceExhausted, "larger than")
	})
	t.Run("over the budget", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{BodyReadTimeout: waitLimit})
		stalled := stallBudget(t, h)
		res := do(t, http.MethodGet, strings.TrimSuffix(h.Endpoint(), "/")+"/tasks", v10, nil)
		wantRESTRefusal(t, res, http.StatusServiceUnavailable, a2a.ErrInternalError)
		if res.header.Get("Retry-After") != strconv.Itoa(busyRetryAfter) {
			t.Errorf("Retry-After %q, want %d", res.header.Get("Retry-After"), busyRetryAfter)
		}
		wantGRPCStatus(t, grpcCall(t, h.Endpoint(), metadata.Pairs("a2a-version", "1.0"), "hi"), codes.Unavailable, "retry")
		for _, conn := range stalled {
			_ = conn.Close()
		}
	})
	t.Run("zero page size", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{})
		wantRESTRefusal(t, do(t, http.MethodGet, strings.TrimSuffix(h.Endpoint(), "/")+"/tasks?pageSize=0", v10, nil), http.StatusBadRequest, a2a.ErrInvalidParams)
		if res := do(t, http.MethodGet, strings.TrimSuffix(h.Endpoint(), "/")+"/tasks?pageSize=1", v10, nil); res.status != http.StatusOK {
			t.Errorf("pageSize 1: %s", res)
		}
		conn, err := grpc.NewClient(card.GRPCTarget(h.Endpoint()), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		zero := int32(0)
		ctx := metadata.NewOutgoingContext(ctxFor(t), metadata.Pairs("a2a-version", "1.0"))
		_, err = a2apb.NewA2AServiceClient(conn).ListTasks(ctx, &a2apb.ListTasksRequest{PageSize: &zero})
		wantGRPCStatus(t, err, codes.InvalidArgument, "pageSize must be between 1")
	})
	t.Run("stream start", func(t *testing.T) {
		h := startInProcess(t, parseConfig(t, echoConfig), Options{})
		client, _ := newClient(t, h.Endpoint(), nil)
		res, err := client.SendMessage(ctxFor(t), userText("finish"))
		if err != nil {
			t.Fatal(err)
		}
		id := res.(*a2a.Task).ID
		base := strings.TrimSuffix(h.Endpoint(), "/")
		for _, path := range []string{"/tasks/" + string(id) + ":subscribe", "/v1/tasks/" + string(id) + ":subscribe"} {
			header := v10.Clone()
			if strings.HasPrefix(path, "/v1/") {
				delete(header, a2a.SvcParamVersion)
			}
			header.Set("Accept", "text/event-stream")
			got := do(t, http.MethodPost, base+path, header, nil)
			wantRESTRefusal(t, got, http.StatusBadRequest, a2a.ErrUnsupportedOperation)
		}
		body := []byte(`{"message":{"messageId":"m2","taskId":"` + string(id) + `","role":"ROLE_USER","parts":[{"text":"more"}]}}`)
		wantRESTRefusal(t, do(t, http.MethodPost, base+"/message:stream", v10, body), http.StatusBadRequest, a2a.ErrUnsupportedOperation)
	})
}

func (r httpResult) String() string {
	return fmt.Sprintf("%d %v %s", r.status, r.header, bytes.TrimSpace(r.body))
}

// TestBindingsConfigIsChecked refuses a [server] bindings the host cannot
// serve, naming the key.
func TestBindingsConfigIsChecked(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`["REST"]`, `"REST" is not one of`},
		{`["GRPC", "GRPC"]`, `names "GRPC" twice`},
		{`[]`, `server.bindings is empty`},
	} {
		_, err := agentconfig.Parse([]byte(echoConfig + "\n[server]\nbindings = " + tc.value + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "server.bindings") {
			t.Errorf("bindings = %s: %v, want an error naming server.bindings with %q", tc.value, err, tc.want)
		}
	}
}

// TestSDKToolSendsOverEveryBinding runs the official SDK's command-line
// client, `a2a send --transport ...`, against a bearer host over each
// binding.
func TestSDKToolSendsOverEveryBinding(t *testing.T) {
	tool := a2acli.Binary(t)
	h := startInProcess(t, parseConfig(t, guardedBindingsConfig), Options{})
	for _, transport := range []string{"jsonrpc", "rest", "grpc"} {
		t.Run(transport, func(t *testing.T) {
			text := "hello over " + transport
			cmd := exec.CommandContext(ctxFor(t), tool, "send", "--transport", transport, "--insecure",
				"--auth", "Bearer "+bindingsToken, "--output", "json", h.Endpoint(), text)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), text) || !strings.Contains(string(out), "TASK_STATE_COMPLETED") {
				t.Errorf("a2a send --transport %s: %v\n%s", transport, err, out)
			}
			cmd = exec.CommandContext(ctxFor(t), tool, "send", "--transport", transport, "--insecure", h.Endpoint(), "no token")
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Errorf("a2a send --transport %s without the token succeeded:\n%s", transport, out)
			}
		})
	}
}
