package agenthost

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// rpcCall is what the host reads of one JSON-RPC call before the SDK does:
// its top-level members, read in one pass over the call, which may be as
// large as the body limit allows.
type rpcCall struct {
	isJSON  bool
	members map[string]json.RawMessage // nil unless the call is a JSON object
}

func readCall(call []byte) rpcCall {
	var members map[string]json.RawMessage
	err := json.Unmarshal(call, &members)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return rpcCall{}
	}
	return rpcCall{isJSON: true, members: members}
}

// objectProblem says why the call is not a JSON-RPC 2.0 request object, or
// "" when it is one or is no JSON at all (which the SDK answers as a parse
// error). The SDK decodes calls into typed fields, so a call that is no
// object, or whose jsonrpc or method member is no string, would be answered
// as invalid params rather than as an invalid request.
func (c rpcCall) objectProblem() string {
	if !c.isJSON {
		return ""
	}
	if c.members == nil {
		return "a JSON-RPC request must be a JSON object with jsonrpc, id, method and params members"
	}
	for _, name := range []string{"jsonrpc", "method"} {
		if v, ok := c.members[name]; ok && (len(v) == 0 || v[0] != '"') {
			return fmt.Sprintf("the request's %s member must be a string", name)
		}
	}
	return ""
}

// id is the call's id when it is a valid one (a string or a number), and
// nil otherwise, as JSON-RPC 2.0 prescribes for an error before the id is
// known.
func (c rpcCall) id() any {
	v := c.members["id"]
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v
	}
	return nil
}

// str is the string member name holds; "" when it holds none.
func (c rpcCall) str(name string) string {
	var s string
	_ = json.Unmarshal(c.members[name], &s)
	return s
}

// method is the method the call names; "" when it names none.
func (c rpcCall) method() string { return c.str("method") }

// isNotification reports whether the call is a JSON-RPC 2.0 notification: a
// valid request object with no id member, which the server runs and never
// answers. A call without an id that is no valid request is answered as an
// invalid request, with id null.
func (c rpcCall) isNotification() bool {
	_, hasID := c.members["id"]
	return c.members != nil && !hasID && c.str("jsonrpc") == "2.0" && c.method() != ""
}

// notificationProblem says why a notification cannot be run: a stream has
// nowhere to go without an id.
func (c rpcCall) notificationProblem() string {
	if method := c.method(); isStreamingMethod(method) {
		return fmt.Sprintf("%s streams its answer, which a call without an id cannot receive; give the call an id", method)
	}
	return ""
}

// paramsRefusal refuses a ListTasks call whose params the SDK would answer
// wrongly: an explicit pageSize of 0, which its request type cannot tell
// from none, and params of the wrong shape (a timestamp that is no
// timestamp), which it reports as a parse error though the JSON parsed.
func (c rpcCall) paramsRefusal() *refusal {
	params := c.members["params"]
	if c.method() != "ListTasks" || len(params) == 0 {
		return nil
	}
	var size struct {
		PageSize *json.Number `json:"pageSize"`
	}
	if err := json.Unmarshal(params, &size); err != nil {
		return invalidParams(err)
	}
	if size.PageSize != nil {
		if n, err := size.PageSize.Int64(); err == nil && n == 0 {
			return zeroPageSizeRefusal()
		}
	}
	if err := json.Unmarshal(params, new(a2a.ListTasksRequest)); err != nil {
		return invalidParams(err)
	}
	return nil
}

// invalidParams refuses params that do not decode, saying why.
func invalidParams(err error) *refusal {
	return &refusal{kind: a2a.ErrInvalidParams, message: "the params are not those of the method: " + err.Error(),
		status: http.StatusBadRequest, rpcCode: codeInvalidParams}
}
