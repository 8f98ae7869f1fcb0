package agenthost

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// TestIDsRefusedAlikeByEveryStore: an id no store could keep as written (a
// NUL byte, another control character, one too long) is refused as invalid
// params naming it (a forged page token as not one the agent issued), by a host keeping its tasks in memory as by one keeping
// them in PostgreSQL, where the latter answered an internal error in the
// database's words and the former found no such task.
func TestIDsRefusedAlikeByEveryStore(t *testing.T) {
	t.Setenv("A2A_TEST_TASK_STORE", pgtest.Shared(t).NewDatabase(t))
	stores := map[string]string{
		"memory":     echoConfig,
		"postgresql": echoConfig + "\n[tasks]\nstore = \"${A2A_TEST_TASK_STORE}\"\n",
	}
	message := func(field string, id any) map[string]any {
		params := sendParams("hello")
		params["message"].(map[string]any)[field] = id
		return params
	}
	calls := []struct {
		name, method string
		params       any
		field        string
	}{
		{"GetTask with NUL", "GetTask", map[string]any{"id": "t\x00one"}, "id holds the control character U+0000 at byte 1"},
		{"CancelTask with an escape", "CancelTask", map[string]any{"id": "t\x1b[2J"}, "id holds the control character U+001B at byte 1"},
		{"SubscribeToTask too long", "SubscribeToTask", map[string]any{"id": strings.Repeat("t", maxIDBytes+1)}, "id is 1025 bytes long"},
		{"ListTasks by a context with NUL", "ListTasks", map[string]any{"contextId": "\x00"}, "contextId holds the control character U+0000 at byte 0"},
		{"ListTasks after a forged token", "ListTasks", map[string]any{"pageToken": base64.RawURLEncoding.EncodeToString([]byte(time.Now().Format(time.RFC3339Nano) + " t\x00"))},
			"is not a token this agent issued"},
		{"SendMessage to a task with NUL", "SendMessage", message("taskId", "t\x00"), "message.taskId holds the control character U+0000"},
		{"SendMessage in a context with NUL", "SendMessage", message("contextId", "c\x00"), "message.contextId holds the control character U+0000"},
		{"SendMessage with a long message id", "SendMessage", message("messageId", strings.Repeat("m", 4096)), "message.messageId is 4096 bytes long"},
		{"SendMessage referring to a task with NUL", "SendMessage", message("referenceTaskIds", []string{"ok", "t\x00"}),
			"message.referenceTaskIds[1] holds the control character U+0000"},
	}
	for store, config := range stores {
		h := startInProcess(t, parseConfig(t, config), Options{})
		for _, call := range calls {
			t.Run(store+"/"+call.name, func(t *testing.T) {
				res := postRPC(t, h.Endpoint(), call.method, call.params, nil)
				var reply rpcResponse
				if err := json.Unmarshal(res.body, &reply); err != nil || reply.Error == nil {
					t.Fatalf("HTTP %d %s, want a JSON-RPC error", res.status, res.body)
				}
				if reply.Error.Code != -32602 || !strings.Contains(reply.Error.Message, call.field) {
					t.Errorf("error %d %q, want -32602 (invalid params) saying %q", reply.Error.Code, reply.Error.Message, call.field)
				}
			})
		}
	}
}
