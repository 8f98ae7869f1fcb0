package agenthost

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// The binding tests check the JSON-RPC binding (specification, section 9)
// and its error mapping (section 5.4) with raw HTTP and the codes and
// shapes written in the specification, so a mistake the SDK's client and
// server share cannot pass unseen.

// wantWireError checks an answer is the JSON-RPC error object section 9.5
// prescribes: JSON, the code, a message, and details that each name their
// @type, one a google.rpc.ErrorInfo of the A2A domain giving the reason.
func wantWireError(t *testing.T, res httpResult, code int, kind error) rpcResponse {
	t.Helper()
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	rpc := wantRPCError(t, res, code)
	wantErrorObject(t, rpc, kind)
	return rpc
}

func wantErrorObject(t *testing.T, rpc rpcResponse, kind error) {
	t.Helper()
	if rpc.JSONRPC != "2.0" {
		t.Errorf("jsonrpc = %q, want 2.0", rpc.JSONRPC)
	}
	if strings.TrimSpace(rpc.Error.Message) == "" {
		t.Errorf("error %d has no message", rpc.Error.Code)
	}
	var info map[string]any
	for i, d := range rpc.Error.Data {
		typ, _ := d["@type"].(string)
		if typ == "" {
			t.Errorf("error data[%d] = %v has no @type", i, d)
		}
		if typ == errordetails.ErrorInfoType {
			info = d
		}
	}
	if reason := a2a.ErrorReason(kind); info == nil || info["reason"] != reason || info["domain"] != a2a.ProtocolDomain {
		t.Errorf("error data %v, want a google.rpc.ErrorInfo of domain %s with reason %s", rpc.Error.Data, a2a.ProtocolDomain, reason)
	}
}

// TestJSONRPCRequestObjects covers what the host answers a call that is no
// valid request (sections 9.3, 9.5): -32700 for what is not JSON, -32600
// for JSON that is not a request object, with the request's id when it
// can be read, -32601 for an unknown method (including the 0.3 names over
// 1.0, section 5.3) and -32602 for parameters the method cannot take.
func TestJSONRPCRequestObjects(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	header := func() http.Header {
		return http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}
	}
	cases := []struct {
		name   string
		verb   string // POST unless set
		body   string
		code   int
		kind   error
		wantID any // the request's id, or nil when it cannot be read
	}{
		{"not JSON", "", `{"jsonrpc":`, -32700, a2a.ErrParseError, nil},
		{"a number", "", `1`, -32600, a2a.ErrInvalidRequest, nil},
		{"a string", "", `"GetTask"`, -32600, a2a.ErrInvalidRequest, nil},
		{"null", "", `null`, -32600, a2a.ErrInvalidRequest, nil},
		{"jsonrpc is no string", "", `{"jsonrpc":2,"id":1,"method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, float64(1)},
		{"jsonrpc is 1.0", "", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, float64(1)},
		{"no jsonrpc", "", `{"id":1,"method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, float64(1)},
		{"no method", "", `{"jsonrpc":"2.0","id":1}`, -32600, a2a.ErrInvalidRequest, float64(1)},
		{"method is no string", "", `{"jsonrpc":"2.0","id":1,"method":5}`, -32600, a2a.ErrInvalidRequest, float64(1)},
		{"id is an object", "", `{"jsonrpc":"2.0","id":{"n":1},"method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, nil},
		{"id is a boolean", "", `{"jsonrpc":"2.0","id":true,"method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, nil},
		{"not a POST", http.MethodGet, ``, -32600, a2a.ErrInvalidRequest, nil},
		{"unknown method", "", `{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod","params":{}}`, -32601, a2a.ErrMethodNotFound, float64(1)},
		{"0.3 method name over 1.0", "", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`, -32601, a2a.ErrMethodNotFound, float64(1)},
		{"params are no object", "", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"t"}`, -32602, a2a.ErrInvalidParams, float64(1)},
		{"required param missing", "", `{"jsonrpc":"2.0","id":"s","method":"GetTask","params":{}}`, -32602, a2a.ErrInvalidParams, "s"},
		{"no id, no method", "", `{"jsonrpc":"2.0"}`, -32600, a2a.ErrInvalidRequest, nil},
		{"no id, jsonrpc 1.0", "", `{"jsonrpc":"1.0","method":"GetTask","params":{"id":"t"}}`, -32600, a2a.ErrInvalidRequest, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verb := tc.verb
			if verb == "" {
				verb = http.MethodPost
			}
			rpc := wantWireError(t, do(t, verb, h.Endpoint(), header(), []byte(tc.body)), tc.code, tc.kind)
			if rpc.ID != tc.wantID {
				t.Errorf("error id = %#v, want %#v", rpc.ID, tc.wantID)
			}
		})
	}

	t.Run("in a batch", func(t *testing.T) {
		body := `[1, {"jsonrpc":"2.0","id":2,"method":5}, {"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"t"}}]`
		res := do(t, http.MethodPost, h.Endpoint(), header(), []byte(body))
		var answers []rpcResponse
		if err := json.Unmarshal(res.body, &answers); err != nil || len(answers) != 3 {
			t.Fatalf("batch answered %s, want three answers", res.body)
		}
		for i, want := range []struct {
			id   any
			code int
			kind error
		}{{nil, -32600, a2a.ErrInvalidRequest}, {float64(2), -32600, a2a.ErrInvalidRequest}, {float64(3), -32001, a2a.ErrTaskNotFound}} {
			if answers[i].Error == nil || answers[i].Error.Code != want.code || answers[i].ID != want.id {
				t.Errorf("answer %d = %s, want error %d with id %v", i, res.body, want.code, want.id)
				continue
			}
			wantErrorObject(t, answers[i], want.kind)
		}
	})
}

// TestJSONRPCErrorCodes covers the A2A errors the host can meet on the
// wire, each with its code from section 5.4 and the error object of
// section 9.5, including those the host writes itself before the SDK
// sees a call, and those of the 0.3 interface at the same endpoint.
// Validation errors name the parameter at fault (section 3.3.2).
func TestJSONRPCErrorCodes(t *testing.T) {
	const token = "c0des-t0ken"
	t.Setenv("AGENT_TOKEN", token)
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	guarded := startInProcess(t, parseConfig(t, guardedConfig), Options{})
	done := sendTask(t, h.Endpoint(), sendParams("finished"))

	message := func(extra map[string]any, parts ...map[string]any) map[string]any {
		m := map[string]any{"messageId": "m-codes", "role": "ROLE_USER", "parts": parts}
		for k, v := range extra {
			m[k] = v
		}
		return map[string]any{"message": m}
	}
	text := map[string]any{"text": "hi"}
	cases := []struct {
		name     string
		endpoint string
		version  string // A2A-Version; 1.0 unless set
		method   string
		params   any
		code     int
		kind     error
		mentions string // what the message must name
	}{
		{"TaskNotFoundError", h.Endpoint(), "", "GetTask", map[string]any{"id": "no-such-task"}, -32001, a2a.ErrTaskNotFound, ""},
		{"TaskNotFoundError for a message to an unknown task", h.Endpoint(), "", "SendMessage", message(map[string]any{"taskId": "no-such-task"}, text), -32001, a2a.ErrTaskNotFound, ""},
		{"TaskNotCancelableError", h.Endpoint(), "", "CancelTask", map[string]any{"id": done}, -32002, a2a.ErrTaskNotCancelable, ""},
		{"PushNotificationNotSupportedError", h.Endpoint(), "", "ListTaskPushNotificationConfigs", map[string]any{"taskId": done}, -32003, a2a.ErrPushNotificationNotSupported, ""},
		{"UnsupportedOperationError", h.Endpoint(), "", "GetExtendedAgentCard", map[string]any{}, -32004, a2a.ErrUnsupportedOperation, ""},
		{"ContentTypeNotSupportedError", h.Endpoint(), "", "SendMessage", message(nil, map[string]any{"data": map[string]any{"k": 1}}), -32005, a2a.ErrUnsupportedContentType, ""},
		{"VersionNotSupportedError", h.Endpoint(), "9.9", "GetTask", map[string]any{"id": done}, -32009, a2a.ErrVersionNotSupported, "9.9"},
		{"invalid page size", h.Endpoint(), "", "ListTasks", map[string]any{"pageSize": 500}, -32602, a2a.ErrInvalidParams, "pageSize"},
		{"message without parts", h.Endpoint(), "", "SendMessage", message(nil), -32602, a2a.ErrInvalidParams, "parts"},
		{"unauthenticated", guarded.Endpoint(), "", "GetTask", map[string]any{"id": done}, unauthenticatedCode, a2a.ErrUnauthenticated, "Bearer"},
		{"0.3 interface", h.Endpoint(), "0.3", "tasks/get", map[string]any{"id": "no-such-task"}, -32001, a2a.ErrTaskNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{}
			if tc.version != "" {
				header.Set(a2a.SvcParamVersion, tc.version)
			}
			rpc := wantWireError(t, postRPC(t, tc.endpoint, tc.method, tc.params, header), tc.code, tc.kind)
			wantID := any(float64(7))
			if errors.Is(tc.kind, a2a.ErrUnauthenticated) {
				wantID = nil // refused before its body, and so its id, is read
			}
			if rpc.ID != wantID {
				t.Errorf("error id = %#v, want %#v", rpc.ID, wantID)
			}
			if !strings.Contains(rpc.Error.Message, tc.mentions) {
				t.Errorf("error message %q does not name %q", rpc.Error.Message, tc.mentions)
			}
		})
	}

	t.Run("body too large", func(t *testing.T) {
		huge := bytes.Repeat([]byte(" "), maxRequestBytes+1)
		wantWireError(t, do(t, http.MethodPost, h.Endpoint(), http.Header{"Content-Type": {"application/json"}}, huge), -32600, a2a.ErrInvalidRequest)
	})
}

// TestJSONRPCResultsOnTheWire covers the results of section 9.4 as they
// travel: SendMessage answers {"task": ...} or {"message": ...}, GetTask a
// Task, SubscribeToTask of a task that cannot be subscribed to an ordinary
// JSON-RPC error response, not an event stream (a client reads a stream as
// a subscription that started): UnsupportedOperationError for a task in
// any terminal state (9.4.6), TaskNotFoundError for an unknown one; all
// in camelCase with ProtoJSON enum names (5.5) and UTC timestamps (5.6.1).
// Unknown fields are ignored (5.7), and an empty A2A-Version is 0.3 (3.6.2).
func TestJSONRPCResultsOnTheWire(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	asMessage := startInProcess(t, parseConfig(t, echoConfig+"\n[handler.echo]\nreply = \"message\"\n"), Options{})

	result := func(t *testing.T, res httpResult) map[string]any {
		t.Helper()
		var rpc rpcResponse
		var out map[string]any
		if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil || json.Unmarshal(rpc.Result, &out) != nil {
			t.Fatalf("answer %s, want a result object", res.body)
		}
		if rpc.ID != float64(7) {
			t.Errorf("result id = %#v, want the request's 7", rpc.ID)
		}
		return out
	}
	wantTask := func(t *testing.T, task map[string]any, state string) {
		t.Helper()
		status, _ := task["status"].(map[string]any)
		if task["id"] == nil || task["contextId"] == nil || status == nil || status["state"] != state {
			t.Fatalf("task %v, want id, contextId and status.state %s", task, state)
		}
		stamp, _ := status["timestamp"].(string)
		if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil || !strings.HasSuffix(stamp, "Z") {
			t.Errorf("status timestamp %q, want ISO 8601 in UTC with a Z", stamp)
		}
	}

	t.Run("SendMessage answering a task", func(t *testing.T) {
		res := result(t, postRPC(t, h.Endpoint(), "SendMessage", sendParams("as task"), nil))
		task, _ := res["task"].(map[string]any)
		if len(res) != 1 || task == nil {
			t.Fatalf("result %v, want only a task member", res)
		}
		wantTask(t, task, "TASK_STATE_COMPLETED")
		history, _ := task["history"].([]any)
		if len(history) == 0 || history[0].(map[string]any)["role"] != "ROLE_USER" {
			t.Errorf("task history %v, want the user's message with role ROLE_USER", task["history"])
		}
	})
	t.Run("SendMessage answering a message", func(t *testing.T) {
		res := result(t, postRPC(t, asMessage.Endpoint(), "SendMessage", sendParams("as message"), nil))
		msg, _ := res["message"].(map[string]any)
		if len(res) != 1 || msg == nil || msg["role"] != "ROLE_AGENT" || msg["messageId"] == nil {
			t.Fatalf("result %v, want only a message member from ROLE_AGENT with a messageId", res)
		}
	})
	t.Run("GetTask", func(t *testing.T) {
		taskID := sendTask(t, h.Endpoint(), sendParams("get me"))
		task := result(t, postRPC(t, h.Endpoint(), "GetTask", map[string]any{"id": taskID}, nil))
		if task["id"] != taskID {
			t.Errorf("GetTask answered task %v, want %s", task["id"], taskID)
		}
		wantTask(t, task, "TASK_STATE_COMPLETED")
	})

	// A task in each terminal state the host reaches: completed by the echo
	// agent, failed by a model that errs, canceled while a model thinks.
	completed := sendTask(t, h.Endpoint(), sendParams("subscribe to me"))
	erring := newFakeModel(t, answerWith(http.StatusInternalServerError, `{"error":{"message":"overloaded"}}`))
	failing := startInProcess(t, parseConfig(t, llmConfig(erring.URL, "")), Options{})
	failed := sendTask(t, failing.Endpoint(), sendParams("fail"))
	thinking := newFakeModel(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	slow := startInProcess(t, parseConfig(t, llmConfig(thinking.URL, "")), Options{})
	later := sendParams("cancel me")
	later["configuration"] = map[string]any{"returnImmediately": true}
	canceled := sendTask(t, slow.Endpoint(), later)
	wantTask(t, result(t, postRPC(t, slow.Endpoint(), "CancelTask", map[string]any{"id": canceled}, nil)), "TASK_STATE_CANCELED")
	subscriptions := []struct {
		name     string
		endpoint string
		id       string
		state    string // the task's state, if it exists
		code     int
		kind     error
	}{
		{"SubscribeToTask of a completed task", h.Endpoint(), completed, "TASK_STATE_COMPLETED", -32004, a2a.ErrUnsupportedOperation},
		{"SubscribeToTask of a failed task", failing.Endpoint(), failed, "TASK_STATE_FAILED", -32004, a2a.ErrUnsupportedOperation},
		{"SubscribeToTask of a canceled task", slow.Endpoint(), canceled, "TASK_STATE_CANCELED", -32004, a2a.ErrUnsupportedOperation},
		{"SubscribeToTask of an unknown task", h.Endpoint(), "no-such-task", "", -32001, a2a.ErrTaskNotFound},
	}
	for _, tc := range subscriptions {
		t.Run(tc.name, func(t *testing.T) {
			if tc.state != "" {
				wantTask(t, result(t, postRPC(t, tc.endpoint, "GetTask", map[string]any{"id": tc.id}, nil)), tc.state)
			}
			res := postRPC(t, tc.endpoint, "SubscribeToTask", map[string]any{"id": tc.id}, nil)
			wantPlainError(t, res, tc.code, tc.kind)
		})
	}

	t.Run("unrecognized fields are ignored", func(t *testing.T) {
		params := sendParams("from a newer client")
		params["futureOption"] = true
		params["message"].(map[string]any)["futureField"] = map[string]any{"n": 1}
		res := result(t, postRPC(t, h.Endpoint(), "SendMessage", params, nil))
		if task, _ := res["task"].(map[string]any); task == nil {
			t.Errorf("result %v, want the task despite fields this version does not know", res)
		}
	})
	t.Run("empty A2A-Version is 0.3", func(t *testing.T) {
		params := map[string]any{"message": map[string]any{
			"kind": "message", "messageId": "m-empty", "role": "user",
			"parts": []map[string]any{{"kind": "text", "text": "empty version"}},
		}}
		res := result(t, postRPC(t, h.Endpoint(), "message/send", params, http.Header{a2a.SvcParamVersion: {""}}))
		if res["kind"] != "task" {
			t.Errorf("0.3 result %v, want a task of kind task", res)
		}
	})
}

// sendTask sends a message over raw JSON-RPC and returns the id of the
// task the agent answers with.
func sendTask(t *testing.T, endpoint string, params map[string]any) string {
	t.Helper()
	res := postRPC(t, endpoint, "SendMessage", params, nil)
	var rpc rpcResponse
	var out struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil || json.Unmarshal(rpc.Result, &out) != nil || out.Task.ID == "" {
		t.Fatalf("SendMessage answered %s, want a task", res.body)
	}
	return out.Task.ID
}

// sseEvents decodes the data lines of a Server-Sent Events body.
func sseEvents(t *testing.T, body []byte) []rpcResponse {
	t.Helper()
	var events []rpcResponse
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		var ev rpcResponse
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		events = append(events, ev)
	}
	return events
}

// TestJSONRPCNotifications covers calls without an id (JSON-RPC 2.0, 4.1):
// the host runs them and answers nothing, alone or in a batch, except a
// streaming method, whose answer such a call could not receive.
func TestJSONRPCNotifications(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	header := http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}
	notify := func(method string, params any) string {
		return `{"jsonrpc":"2.0","method":"` + method + `","params":` + mustJSON(t, params) + `}`
	}
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantIDs    []any // answers of a batch, in order
		newTasks   int
	}{
		{"alone", notify("SendMessage", sendParams("unanswered")), http.StatusNoContent, nil, 1},
		{"a batch of notifications", "[" + notify("SendMessage", sendParams("one")) + "," + notify("SendMessage", sendParams("two")) + "]", http.StatusNoContent, nil, 2},
		{"in a batch with a request", "[" + notify("SendMessage", sendParams("quiet")) + `,{"jsonrpc":"2.0","id":"r","method":"GetTask","params":{"id":"missing"}}]`, http.StatusOK, []any{"r"}, 1},
		{"an error is not answered", notify("GetTask", map[string]any{"id": "missing"}), http.StatusNoContent, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countTasks(t, h.Endpoint())
			res := do(t, http.MethodPost, h.Endpoint(), header, []byte(tt.body))
			if res.status != tt.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.status, res.body, tt.wantStatus)
			}
			if tt.wantIDs == nil && len(bytes.TrimSpace(res.body)) > 0 {
				t.Errorf("answered %s, want no body", res.body)
			}
			if tt.wantIDs != nil {
				var answers []rpcResponse
				if err := json.Unmarshal(res.body, &answers); err != nil {
					t.Fatalf("batch answered %s: %v", res.body, err)
				}
				var ids []any
				for _, a := range answers {
					ids = append(ids, a.ID)
				}
				if !slices.Equal(ids, tt.wantIDs) {
					t.Errorf("batch answered ids %v, want %v", ids, tt.wantIDs)
				}
			}
			if got := countTasks(t, h.Endpoint()) - before; got != tt.newTasks {
				t.Errorf("%d tasks made, want %d: a notification must still run", got, tt.newTasks)
			}
		})
	}
	t.Run("a stream cannot be a notification", func(t *testing.T) {
		rpc := wantWireError(t, do(t, http.MethodPost, h.Endpoint(), header, []byte(notify("SendStreamingMessage", sendParams("s")))), -32600, a2a.ErrInvalidRequest)
		if rpc.ID != nil || !strings.Contains(rpc.Error.Message, "give the call an id") {
			t.Errorf("answer %+v, want an invalid request with id null saying to give an id", rpc)
		}
	})
}

// countTasks counts the tasks ListTasks shows the caller.
func countTasks(t *testing.T, endpoint string) int {
	t.Helper()
	res := postRPC(t, endpoint, "ListTasks", map[string]any{"pageSize": 100}, nil)
	var rpc rpcResponse
	var out struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil || json.Unmarshal(rpc.Result, &out) != nil {
		t.Fatalf("ListTasks answered %s", res.body)
	}
	return len(out.Tasks)
}
