package agenthost

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// The conformance tests check the host against the A2A specification
// (section numbers in the test names' comments) through the official SDK
// client, its 0.3 compatibility client, and raw JSON-RPC on the wire.

// rpcError decodes a JSON-RPC answer that must be an error.
func wantRPCError(t *testing.T, res httpResult, code int) rpcResponse {
	t.Helper()
	var rpc rpcResponse
	if err := json.Unmarshal(res.body, &rpc); err != nil {
		t.Fatalf("status %d body %s: %v", res.status, res.body, err)
	}
	if rpc.Error == nil || rpc.Error.Code != code {
		t.Fatalf("answer %s, want error code %d", res.body, code)
	}
	return rpc
}

// TestListTasks covers ListTasks (sections 3.1.4, 9.4.4): newest first by
// status time, cursor pagination ending in an empty nextPageToken,
// artifacts only when asked, filters, and validation.
func TestListTasks(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	var sent []a2a.TaskID
	for _, text := range []string{"one", "two", "three", "four", "five"} {
		res, err := client.SendMessage(ctxFor(t), userText(text))
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		sent = append(sent, res.(*a2a.Task).ID)
	}

	var listed []a2a.TaskID
	token := ""
	for pages := 0; ; pages++ {
		page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatalf("ListTasks: %v", err)
		}
		if page.TotalSize != len(sent) || page.PageSize != 2 {
			t.Errorf("page %d: totalSize %d pageSize %d, want %d and 2", pages, page.TotalSize, page.PageSize, len(sent))
		}
		for _, task := range page.Tasks {
			listed = append(listed, task.ID)
			if task.Artifacts != nil {
				t.Errorf("task %s listed with artifacts though includeArtifacts was not set", task.ID)
			}
		}
		token = page.NextPageToken
		if token == "" {
			break
		}
		if pages > len(sent) {
			t.Fatalf("pagination does not end: %v", listed)
		}
	}
	if len(listed) != len(sent) {
		t.Fatalf("listed %v, want the %d tasks sent", listed, len(sent))
	}
	for i, id := range listed {
		if want := sent[len(sent)-1-i]; id != want {
			t.Errorf("listed[%d] = %s, want %s (newest first)", i, id, want)
		}
	}

	t.Run("on the wire", func(t *testing.T) {
		res := postRPC(t, h.Endpoint(), "ListTasks", map[string]any{"pageSize": 100}, nil)
		var rpc rpcResponse
		if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil {
			t.Fatalf("ListTasks answered %s", res.body)
		}
		var raw map[string]any
		if err := json.Unmarshal(rpc.Result, &raw); err != nil {
			t.Fatal(err)
		}
		if token, ok := raw["nextPageToken"]; !ok || token != "" {
			t.Errorf("last page nextPageToken = %#v (present %v), want an empty string", token, ok)
		}
		for _, task := range raw["tasks"].([]any) {
			if _, ok := task.(map[string]any)["artifacts"]; ok {
				t.Errorf("task listed with an artifacts field though includeArtifacts was not set: %v", task)
			}
		}
	})

	t.Run("artifacts when asked", func(t *testing.T) {
		page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{IncludeArtifacts: true, PageSize: 1})
		if err != nil {
			t.Fatalf("ListTasks: %v", err)
		}
		if len(page.Tasks) != 1 || len(page.Tasks[0].Artifacts) != 1 || partsText(page.Tasks[0].Artifacts[0].Parts) != "five" {
			t.Errorf("tasks = %+v, want the newest with its artifact", page.Tasks)
		}
	})

	t.Run("filters", func(t *testing.T) {
		first, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: sent[0]})
		if err != nil {
			t.Fatalf("GetTask: %v", err)
		}
		page, err := client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{ContextID: first.ContextID})
		if err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != sent[0] {
			t.Errorf("ListTasks by context = %+v, %v; want only %s", page, err, sent[0])
		}
		page, err = client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{Status: a2a.TaskStateWorking})
		if err != nil || len(page.Tasks) != 0 || page.TotalSize != 0 {
			t.Errorf("ListTasks of working tasks = %+v, %v; want none", page, err)
		}
		zero := 0
		page, err = client.ListTasks(ctxFor(t), &a2a.ListTasksRequest{HistoryLength: &zero, PageSize: 1})
		if err != nil || len(page.Tasks) != 1 || len(page.Tasks[0].History) != 0 {
			t.Errorf("ListTasks with historyLength 0 = %+v, %v; want no history", page, err)
		}
	})

	t.Run("invalid parameters", func(t *testing.T) {
		for _, params := range []map[string]any{
			{"pageSize": 101},
			{"pageSize": -1},
			{"pageToken": "not-a-token"},
			{"historyLength": -5},
			{"status": "INVALID_STATUS"},
			{"pageSize": 0},
			{"statusTimestampAfter": "-1"},
			{"pageSize": "ten"},
		} {
			wantRPCError(t, postRPC(t, h.Endpoint(), "ListTasks", params, nil), -32602)
		}
	})
}

// TestTaskMethodsOnEchoTasks covers the task methods on real tasks:
// GetTask (3.1.3), CancelTask of a finished task (3.1.5) and
// SubscribeToTask of one (3.1.6, 9.4.6).
func TestTaskMethodsOnEchoTasks(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	res, err := client.SendMessage(ctxFor(t), userText("keep me"))
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	id := res.(*a2a.Task).ID
	got, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || resultText(got) != "keep me" {
		t.Fatalf("GetTask = %+v, %v; want the completed task with its artifact", got, err)
	}
	if got.Status.Timestamp == nil {
		t.Errorf("task status has no timestamp")
	}
	if _, err := client.CancelTask(ctxFor(t), &a2a.CancelTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("CancelTask of a completed task: err = %v, want %v", err, a2a.ErrTaskNotCancelable)
	}
	// The SDK's JSON-RPC client ends a stream answered with a plain error
	// response without reporting it, so the answer is read as sent.
	wantPlainError(t, postRPC(t, h.Endpoint(), "SubscribeToTask", map[string]any{"id": id}, http.Header{a2a.SvcParamVersion: {"1.0"}}), -32004, nil)
}

// TestTasksAreScopedToTheCaller covers authorization scoping (3.1.4,
// 13.1): with authentication the tasks belong to the bearer identity; a
// caller of another scope sees none of them.
func TestTasksAreScopedToTheCaller(t *testing.T) {
	const token = "scope-t0ken-123"
	t.Setenv("AGENT_TOKEN", token)
	h := startInProcess(t, parseConfig(t, guardedConfig), Options{})
	authorized := http.Header{"Authorization": {"Bearer " + token}}
	res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("mine"), authorized.Clone())
	var rpc rpcResponse
	if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil {
		t.Fatalf("SendMessage answered %s", res.body)
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(rpc.Result, &sr); err != nil {
		t.Fatal(err)
	}
	task := sr.Event.(*a2a.Task)

	res = postRPC(t, h.Endpoint(), "ListTasks", map[string]any{}, authorized.Clone())
	var list a2a.ListTasksResponse
	if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil || json.Unmarshal(rpc.Result, &list) != nil {
		t.Fatalf("ListTasks answered %s", res.body)
	}
	if len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Errorf("ListTasks = %+v, want the caller's task %s", list.Tasks, task.ID)
	}

	// The store scopes by the caller the host authenticated; another
	// scope neither lists nor reads the task.
	store := newTaskStore(10, 0)
	if _, err := store.Create(asCaller("bearer:a"), task); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(asCaller("bearer:b"), task.ID); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Get from another scope: err = %v, want %v", err, a2a.ErrTaskNotFound)
	}
	if page, err := store.List(asCaller("bearer:b"), &a2a.ListTasksRequest{}); err != nil || len(page.Tasks) != 0 {
		t.Errorf("List from another scope = %+v, %v; want nothing", page, err)
	}
	if page, err := store.List(asCaller("bearer:a"), &a2a.ListTasksRequest{}); err != nil || len(page.Tasks) != 1 {
		t.Errorf("List from the owner = %+v, %v; want its task", page, err)
	}
}

// TestProtocolVersions covers A2A-Version (3.6): 1.0 and 0.3 are served,
// a patch number is ignored, no version means 0.3, anything else is
// VersionNotSupportedError with the request's id.
func TestProtocolVersions(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	v03Params := map[string]any{"message": map[string]any{
		"kind": "message", "messageId": "m-03", "role": "user",
		"parts": []map[string]any{{"kind": "text", "text": "old client"}},
	}}
	version := func(v string) http.Header { return http.Header{a2a.SvcParamVersion: {v}} }

	t.Run("unsupported version", func(t *testing.T) {
		for _, v := range []string{"99.0", "2.0", "0.2", "1"} {
			rpc := wantRPCError(t, postRPC(t, h.Endpoint(), "SendMessage", sendParams("x"), version(v)), -32009)
			if id, _ := rpc.ID.(float64); id != 7 {
				t.Errorf("A2A-Version %s: error id = %v, want the request's 7", v, rpc.ID)
			}
		}
	})
	t.Run("header name in any case", func(t *testing.T) {
		// A raw map key: the client sends it as written.
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 11, "method": "SendMessage", "params": sendParams("x")})
		res := do(t, http.MethodPost, h.Endpoint(), http.Header{"Content-Type": {"application/json"}, "a2a-version": {"99.0"}}, body)
		wantRPCError(t, res, -32009)
	})
	t.Run("patch number ignored", func(t *testing.T) {
		res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("patched"), version("1.0.7"))
		if !strings.Contains(string(res.body), "patched") {
			t.Errorf("A2A-Version 1.0.7 answered %s, want the echo", res.body)
		}
	})
	t.Run("version as query parameter", func(t *testing.T) {
		res := postRPC(t, h.Endpoint()+"?A2A-Version=99.0", "SendMessage", sendParams("x"), http.Header{})
		// The header postRPC adds wins over the query parameter.
		if strings.Contains(string(res.body), "-32009") {
			t.Errorf("header 1.0 with query 99.0 answered %s", res.body)
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "SendMessage", "params": sendParams("query")})
		res = do(t, http.MethodPost, h.Endpoint()+"?A2A-Version=1.0", http.Header{"Content-Type": {"application/json"}}, body)
		if !strings.Contains(string(res.body), "query") {
			t.Errorf("query A2A-Version=1.0 answered %s, want the echo", res.body)
		}
	})
	t.Run("no version is 0.3", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "message/send", "params": v03Params})
		res := do(t, http.MethodPost, h.Endpoint(), http.Header{"Content-Type": {"application/json"}}, body)
		var rpc rpcResponse
		if err := json.Unmarshal(res.body, &rpc); err != nil || rpc.Error != nil || !strings.Contains(string(rpc.Result), "old client") {
			t.Errorf("0.3 call without a version answered %s, want the echo", res.body)
		}
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 10, "method": "SendMessage", "params": sendParams("new name")})
		wantRPCError(t, do(t, http.MethodPost, h.Endpoint(), http.Header{"Content-Type": {"application/json"}}, body), -32601)
	})
	t.Run("0.3 compatibility client", func(t *testing.T) {
		iface := a2a.NewAgentInterface(h.Endpoint(), a2a.TransportProtocolJSONRPC)
		iface.ProtocolVersion = a2av0.Version
		client, err := a2aclient.NewFromEndpoints(ctxFor(t), []*a2a.AgentInterface{iface}, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
		if err != nil {
			t.Fatalf("0.3 client: %v", err)
		}
		res, err := client.SendMessage(ctxFor(t), userText("from 0.3"))
		if err != nil {
			t.Fatalf("SendMessage over 0.3: %v", err)
		}
		task, ok := res.(*a2a.Task)
		if !ok || resultText(res) != "from 0.3" {
			t.Fatalf("0.3 reply = %#v, want the echo task", res)
		}
		got, err := client.GetTask(ctxFor(t), &a2a.GetTaskRequest{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateCompleted {
			t.Errorf("GetTask over 0.3 = %+v, %v; want the completed task", got, err)
		}
		var streamed string
		for ev, err := range client.SendStreamingMessage(ctxFor(t), userText("streamed 0.3")) {
			if err != nil {
				t.Fatalf("stream over 0.3: %v", err)
			}
			if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				streamed += partsText(a.Artifact.Parts)
			}
		}
		if streamed != "streamed 0.3" {
			t.Errorf("0.3 stream carried %q, want the echo", streamed)
		}
	})
	t.Run("the card lists both versions", func(t *testing.T) {
		_, served := newClient(t, h.Endpoint(), nil)
		versions := map[a2a.ProtocolVersion]bool{}
		for _, iface := range served.SupportedInterfaces {
			if iface.URL == h.Endpoint() && iface.ProtocolBinding == a2a.TransportProtocolJSONRPC {
				versions[iface.ProtocolVersion] = true
			}
		}
		if !versions[a2a.Version] || !versions[a2av0.Version] || served.SupportedInterfaces[0].ProtocolVersion != a2a.Version {
			t.Errorf("card interfaces %+v, want JSON-RPC 1.0 first and 0.3 at the endpoint", served.SupportedInterfaces)
		}
	})
}

// TestCardCaching covers section 8.6.1: Cache-Control with max-age, an
// ETag, Last-Modified, and 304 for a conditional GET of the unchanged card.
func TestCardCaching(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	first := httpGet(t, h.CardURL())
	if first.status != http.StatusOK {
		t.Fatalf("card status %d", first.status)
	}
	if cc := first.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control = %q, want a max-age", cc)
	}
	etag := first.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		t.Fatalf("ETag = %q, want a strong entity tag", etag)
	}
	if again := httpGet(t, h.CardURL()); again.header.Get("ETag") != etag {
		t.Errorf("ETag changed between two reads of one card: %q, %q", etag, again.header.Get("ETag"))
	}
	cases := []struct {
		ifNoneMatch string
		want        int
	}{
		{etag, http.StatusNotModified},
		{`W/` + etag, http.StatusNotModified},
		{`"other", ` + etag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{`"stale"`, http.StatusOK},
	}
	for _, tc := range cases {
		res := do(t, http.MethodGet, h.CardURL(), http.Header{"If-None-Match": {tc.ifNoneMatch}}, nil)
		if res.status != tc.want {
			t.Errorf("If-None-Match %s: status %d, want %d", tc.ifNoneMatch, res.status, tc.want)
		}
		if tc.want == http.StatusNotModified && (len(res.body) != 0 || res.header.Get("ETag") != etag) {
			t.Errorf("304 carries body %q, ETag %q", res.body, res.header.Get("ETag"))
		}
		if tc.want == http.StatusOK && string(res.body) != string(first.body) {
			t.Errorf("If-None-Match %s: body differs from the card", tc.ifNoneMatch)
		}
	}
	// Last-Modified (a MAY) is the host's start, so If-Modified-Since with
	// it is answered 304 too.
	lastModified := first.header.Get("Last-Modified")
	if lastModified == "" {
		t.Error("no Last-Modified on the card")
	} else if res := do(t, http.MethodGet, h.CardURL(), http.Header{"If-Modified-Since": {lastModified}}, nil); res.status != http.StatusNotModified {
		t.Errorf("If-Modified-Since %s: status %d, want 304", lastModified, res.status)
	}
	if res := do(t, http.MethodPost, h.CardURL(), nil, nil); res.status != http.StatusMethodNotAllowed {
		t.Errorf("POST to the card: status %d, want 405", res.status)
	}
	if res := do(t, http.MethodGet, h.CardURL(), http.Header{"Origin": {"https://ui.example"}}, nil); res.header.Get("Access-Control-Allow-Origin") != "https://ui.example" {
		t.Errorf("card to a browser origin: Access-Control-Allow-Origin %q", res.header.Get("Access-Control-Allow-Origin"))
	}
}

// TestJSONRPCEnvelope covers the JSON-RPC 2.0 rules the binding rests on
// (section 9): batches, an empty one being an invalid request, parse
// errors, and content types.
func TestJSONRPCEnvelope(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	header := func() http.Header {
		return http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}
	}
	t.Run("empty batch", func(t *testing.T) {
		rpc := wantRPCError(t, do(t, http.MethodPost, h.Endpoint(), header(), []byte(" [ ] ")), -32600)
		if rpc.ID != nil {
			t.Errorf("empty batch answered with id %v, want null", rpc.ID)
		}
	})
	t.Run("batch", func(t *testing.T) {
		body := `[{"jsonrpc":"2.0","id":"a","method":"SendMessage","params":` + mustJSON(t, sendParams("first")) + `},` +
			`{"jsonrpc":"2.0","id":"b","method":"GetTask","params":{"id":"missing"}},` +
			`{"jsonrpc":"2.0","id":"c","method":"SendStreamingMessage","params":` + mustJSON(t, sendParams("x")) + `}]`
		res := do(t, http.MethodPost, h.Endpoint(), header(), []byte(body))
		var answers []rpcResponse
		if err := json.Unmarshal(res.body, &answers); err != nil {
			t.Fatalf("batch answered %s: %v", res.body, err)
		}
		if len(answers) != 3 || answers[0].ID != "a" || answers[1].ID != "b" || answers[2].ID != "c" {
			t.Fatalf("batch answers %s, want three in order", res.body)
		}
		if answers[0].Error != nil || !strings.Contains(string(answers[0].Result), "first") {
			t.Errorf("first answer %s", res.body)
		}
		if answers[1].Error == nil || answers[1].Error.Code != -32001 {
			t.Errorf("second answer should be TaskNotFound: %s", res.body)
		}
		if answers[2].Error == nil || answers[2].Error.Code != -32600 {
			t.Errorf("a stream in a batch should be an invalid request: %s", res.body)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		wantRPCError(t, do(t, http.MethodPost, h.Endpoint(), header(), []byte(`{"jsonrpc":`)), -32700)
	})
	t.Run("not JSON-RPC 2.0", func(t *testing.T) {
		wantRPCError(t, do(t, http.MethodPost, h.Endpoint(), header(), []byte(`{"jsonrpc":"1.0","id":1,"method":"GetTask"}`)), -32600)
	})
	t.Run("responses are JSON", func(t *testing.T) {
		res := postRPC(t, h.Endpoint(), "GetTask", map[string]any{"id": "missing"}, nil)
		if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
		rpc := wantRPCError(t, res, -32001)
		if len(rpc.Error.Data) == 0 || rpc.Error.Data[0]["@type"] == nil {
			t.Errorf("error data %v, want objects with @type", rpc.Error.Data)
		}
	})
}

// TestUnauthenticatedReplyNamesNoID covers JSON-RPC 2.0's rule that an
// error answers with id null when the request's id was not read: the host
// refuses a call without the token from its headers, before it reads (or
// charges for) the body, whether or not the body could be read.
func TestUnauthenticatedReplyNamesNoID(t *testing.T) {
	t.Setenv("AGENT_TOKEN", "id-t0ken-456")
	h := startInProcess(t, parseConfig(t, guardedConfig), Options{})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":` + mustJSON(t, sendParams("no token")) + `}`,
		"{",
	} {
		res := do(t, http.MethodPost, h.Endpoint(), rpcHeader, []byte(body))
		if res.status != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", res.status)
		}
		if rpc := wantRPCError(t, res, unauthenticatedCode); rpc.ID != nil {
			t.Errorf("401 to %q answered with id %v, want null", body, rpc.ID)
		}
	}
}

// asCaller is a context of a call the host authenticated as scope.
func asCaller(scope string) context.Context {
	ctx, callCtx := a2asrv.NewCallContext(context.Background(), nil)
	callCtx.User = a2asrv.NewAuthenticatedUser(scope, nil)
	return ctx
}

// TestSubscribeToRunningTask covers SubscribeToTask of a task still
// running (sections 3.1.6, 9.4.6): the stream follows it to its end.
func TestSubscribeToRunningTask(t *testing.T) {
	release := make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	model := newFakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		answerWith(http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"late answer"}}]}`)(w, r)
	})
	t.Cleanup(let)
	h := startInProcess(t, parseConfig(t, llmConfig(model.URL, "")), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	req := userText("take your time")
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	res, err := client.SendMessage(ctxFor(t), req)
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	id := res.(*a2a.Task).ID
	waitFor(t, func() bool { return len(model.recorded()) == 1 })
	var answer string
	var last a2a.TaskState
	first := true
	for ev, err := range client.SubscribeToTask(ctxFor(t), &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatalf("SubscribeToTask: %v", err)
		}
		if first {
			let()
			first = false
		}
		switch e := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			answer += partsText(e.Artifact.Parts)
		case *a2a.TaskStatusUpdateEvent:
			last = e.Status.State
		case *a2a.Task:
			last = e.Status.State
		}
	}
	if answer != "late answer" || last != a2a.TaskStateCompleted {
		t.Errorf("subscription saw %q ending %s, want the answer and completed", answer, last)
	}
}
