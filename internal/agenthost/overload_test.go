package agenthost

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The tests in this file send what a client out to exhaust a host sends:
// huge batches, floods of requests and of connections.

// sendCall is a SendMessage call of a batch.
func sendCall(t *testing.T, id any, text string) string {
	return `{"jsonrpc":"2.0","id":` + mustJSON(t, id) + `,"method":"SendMessage","params":` + mustJSON(t, sendParams(text)) + `}`
}

func batchOf(t *testing.T, calls int) []byte {
	parts := make([]string, calls)
	for i := range parts {
		parts[i] = sendCall(t, i, "call "+strconv.Itoa(i))
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

var rpcHeader = http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}

// TestBatchOverTheCapIsRefusedWhole checks a batch of more calls than
// maxBatchCalls is refused with one error naming the cap, before any of
// its calls runs, and that a full batch still runs every call.
func TestBatchOverTheCapIsRefusedWhole(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), &syncBuffer{})

	rpc := wantWireError(t, do(t, http.MethodPost, h.Endpoint(), rpcHeader, batchOf(t, maxBatchCalls+1)), codeInvalidRequest, a2a.ErrInvalidRequest)
	if rpc.ID != nil || !strings.Contains(rpc.Error.Message, fmt.Sprintf("at most %d calls", maxBatchCalls)) {
		t.Errorf("refusal %+v, want id null and a message naming the cap of %d", rpc, maxBatchCalls)
	}
	if n := countTasks(t, h.Endpoint()); n != 0 {
		t.Errorf("a refused batch ran %d of its calls", n)
	}

	res := do(t, http.MethodPost, h.Endpoint(), rpcHeader, batchOf(t, maxBatchCalls))
	var answers []rpcResponse
	if err := json.Unmarshal(res.body, &answers); err != nil || len(answers) != maxBatchCalls {
		t.Fatalf("a batch of %d calls answered %d answers (%v)", maxBatchCalls, len(answers), err)
	}
	for i, a := range answers {
		if a.Error != nil || a.ID != float64(i) {
			t.Fatalf("answer %d = %+v, want the result of call %d", i, a, i)
		}
	}
}

// TestBatchAnswersAreStreamed checks a batch's answers leave as their calls
// finish: the first is readable while the second call still waits for its
// model, so the host does not hold all answers until the last call ends.
func TestBatchAnswersAreStreamed(t *testing.T) {
	model, release := heldModel(t)
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), &syncBuffer{})

	// The first call reads a task (no model involved), the second waits
	// for the held model.
	body := `[{"jsonrpc":"2.0","id":"first","method":"GetTask","params":{"id":"missing"}},` + sendCall(t, "second", "slow") + `]`
	req, err := http.NewRequestWithContext(ctxFor(t), http.MethodPost, h.Endpoint(), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = rpcHeader.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer to a batch whose second call waits: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	dec := json.NewDecoder(resp.Body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		t.Fatalf("batch answer starts with %v (%v), want [", tok, err)
	}
	var first rpcResponse
	if err := dec.Decode(&first); err != nil || first.ID != "first" {
		t.Fatalf("first answer %+v (%v), want the answer to call first", first, err)
	}
	release()
	var second rpcResponse
	if err := dec.Decode(&second); err != nil || second.ID != "second" || second.Error != nil {
		t.Fatalf("second answer %+v (%v), want the result of call second", second, err)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		t.Fatalf("batch answer ends with %v (%v), want ]", tok, err)
	}
}
