package agenthost

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// wantPlainError checks that res is an ordinary JSON-RPC error response
// with code, for the request id 7: not an event stream, which clients
// read as a stream that started.
func wantPlainError(t *testing.T, res httpResult, code int, kind error) {
	t.Helper()
	if ct := res.header.Get("Content-Type"); res.status != http.StatusOK || !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("status %d Content-Type %q: %s; want 200 and a JSON-RPC error response", res.status, ct, res.body)
	}
	var rpc rpcResponse
	if err := json.Unmarshal(res.body, &rpc); err != nil {
		t.Fatalf("answer %s: %v", res.body, err)
	}
	if rpc.Error == nil || rpc.Error.Code != code || rpc.ID != float64(7) {
		t.Fatalf("answer %s, want error %d for id 7", res.body, code)
	}
	if kind != nil {
		wantErrorObject(t, rpc, kind)
	}
}

// TestStreamStartErrorsArePlainResponses covers streaming calls the host
// refuses before it has anything to stream, in both protocol versions:
// each is answered as any refused call is, while a call that streams
// still gets its events.
func TestStreamStartErrorsArePlainResponses(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	completed := sendTask(t, h.Endpoint(), sendParams("finished"))
	noParts := sendParams("")
	noParts["message"].(map[string]any)["parts"] = []any{}
	v10, v03 := http.Header{a2a.SvcParamVersion: {"1.0"}}, http.Header{a2a.SvcParamVersion: {"0.3"}}
	v03Message := func(parts []any, taskID string) map[string]any {
		msg := map[string]any{"kind": "message", "messageId": "m-03", "role": "user", "parts": parts}
		if taskID != "" {
			msg["taskId"] = taskID
		}
		return map[string]any{"message": msg}
	}
	text03 := []any{map[string]any{"kind": "text", "text": "hello"}}
	tests := []struct {
		name   string
		method string
		params any
		header http.Header
		code   int
	}{
		{"SubscribeToTask of a completed task", "SubscribeToTask", map[string]any{"id": completed}, v10, -32004},
		{"SubscribeToTask of an unknown task", "SubscribeToTask", map[string]any{"id": "no-such-task"}, v10, -32001},
		{"SendStreamingMessage without parts", "SendStreamingMessage", noParts, v10, -32602},
		{"SendStreamingMessage to an unknown task", "SendStreamingMessage", withTaskID(sendParams("to nowhere"), "no-such-task"), v10, -32001},
		{"SendStreamingMessage to a completed task", "SendStreamingMessage", withTaskID(sendParams("once more"), completed), v10, -32004},
		{"SendMessage to a completed task", "SendMessage", withTaskID(sendParams("and again"), completed), v10, -32004},
		{"0.3 tasks/resubscribe of a completed task", "tasks/resubscribe", map[string]any{"id": completed}, v03, -32004},
		{"0.3 tasks/resubscribe of an unknown task", "tasks/resubscribe", map[string]any{"id": "no-such-task"}, v03, -32001},
		{"0.3 message/stream to an unknown task", "message/stream", v03Message(text03, "no-such-task"), v03, -32001},
		{"0.3 message/stream to a completed task", "message/stream", v03Message(text03, completed), v03, -32004},
		{"SendStreamingMessage in a version the agent does not speak", "SendStreamingMessage", sendParams("x"), http.Header{a2a.SvcParamVersion: {"9.9"}}, -32009},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantPlainError(t, postRPC(t, h.Endpoint(), tt.method, tt.params, tt.header), tt.code, nil)
		})
	}
	// streams are a streaming call of each version that starts a stream
	// when nothing refuses it.
	streams := []struct {
		method string
		params any
		header http.Header
	}{
		{"SendStreamingMessage", sendParams("streamed"), v10},
		{"message/stream", v03Message(text03, ""), v03},
	}
	t.Run("a bearer token missing", func(t *testing.T) {
		t.Setenv("AGENT_TOKEN", "stream-t0ken")
		guarded := startInProcess(t, parseConfig(t, guardedConfig), Options{})
		for _, tc := range streams {
			res := postRPC(t, guarded.Endpoint(), tc.method, tc.params, tc.header)
			var rpc rpcResponse
			if ct := res.header.Get("Content-Type"); res.status != http.StatusUnauthorized || !strings.HasPrefix(ct, "application/json") ||
				json.Unmarshal(res.body, &rpc) != nil || rpc.Error == nil {
				t.Errorf("%s: status %d Content-Type %q: %s; want 401 and a JSON-RPC error response", tc.method, res.status, ct, res.body)
			}
		}
	})
	t.Run("a stream that starts is a stream", func(t *testing.T) {
		for _, tc := range streams {
			res := postRPC(t, h.Endpoint(), tc.method, tc.params, tc.header)
			if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("%s: Content-Type %q, want an event stream: %s", tc.method, ct, res.body)
			}
			if events := sseEvents(t, res.body); len(events) < 2 || events[0].Error != nil {
				t.Errorf("%s: events %+v, want the task's events", tc.method, events)
			}
		}
	})
}

func withTaskID(params map[string]any, taskID string) map[string]any {
	params["message"].(map[string]any)["taskId"] = taskID
	return params
}

// TestStreamGate covers what the gate does with streams of each shape: an
// error first is a plain response; a result first, or a comment, starts
// the stream, whose later errors stay events; a handler that writes no
// event has its status and headers sent as they are.
func TestStreamGate(t *testing.T) {
	const (
		errorEvent  = "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"no task\"}}\n\n"
		resultEvent = "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"task\":{}}}\n\n"
		restError   = `{"error":{"code":404,"status":"NOT_FOUND","message":"no task"}}`
		restResult  = "data: {\"task\":{}}\n\n"
	)
	tests := []struct {
		name       string
		refusal    func([]byte) (int, []byte, bool)
		writes     []string
		status     int
		wantType   string
		wantStatus int
		wantBody   string
	}{
		{"error first", rpcStreamError, []string{errorEvent[:20], errorEvent[20:]}, http.StatusOK, "application/json", http.StatusOK,
			"{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"no task\"}}\n"},
		{"result first, error later", rpcStreamError, []string{resultEvent, errorEvent}, http.StatusOK, "text/event-stream", http.StatusOK, resultEvent + errorEvent},
		{"keep-alive first", rpcStreamError, []string{": keep-alive\n\n", errorEvent}, http.StatusOK, "text/event-stream", http.StatusOK, ": keep-alive\n\n" + errorEvent},
		{"no event", rpcStreamError, nil, http.StatusServiceUnavailable, "text/event-stream", http.StatusServiceUnavailable, ""},
		{"HTTP+JSON error first", restStreamError, []string{"data: " + restError + "\n\n"}, http.StatusOK, "application/json", http.StatusNotFound, restError + "\n"},
		{"HTTP+JSON result first, error later", restStreamError, []string{restResult, "data: " + restError + "\n\n"}, http.StatusOK, "text/event-stream", http.StatusOK,
			restResult + "data: " + restError + "\n\n"},
		{"HTTP+JSON error of no HTTP status", restStreamError, []string{`data: {"error":{"code":7}}` + "\n\n"}, http.StatusOK, "application/json", http.StatusInternalServerError,
			`{"error":{"code":7}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			gate := newStreamGate(rec, tt.refusal)
			gate.Header().Set("Content-Type", "text/event-stream")
			gate.WriteHeader(tt.status)
			for _, w := range tt.writes {
				if _, err := gate.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
				gate.Flush()
			}
			gate.finish()
			if got := rec.Header().Get("Content-Type"); got != tt.wantType || rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody {
				t.Errorf("sent %d %q %q; want %d %q %q", rec.Code, got, rec.Body.String(), tt.wantStatus, tt.wantType, tt.wantBody)
			}
		})
	}
}
