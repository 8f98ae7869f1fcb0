package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// The flood that got an agent OOM-killed: four batches at once, each as
// large as a host takes (8 MiB), of SendMessage calls, sent to an agent
// limited to 256Mi of memory.
const (
	floodBatches     = 4
	floodBatchBytes  = 8 << 20
	floodMemoryLimit = "256Mi"
	// invalidRequest is the JSON-RPC code of a request the host refuses
	// as it stands.
	invalidRequest = -32600
)

// batchCap reads the most calls a batch may hold from the host's refusal
// of a larger one.
var batchCap = regexp.MustCompile(`a batch may hold at most (\d+) calls`)

// rpcAnswer is one JSON-RPC response object.
type rpcAnswer struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// sendBatch is a JSON-RPC batch of SendMessage calls numbered from 0:
// calls of them, or as many as fit in maxBytes when calls is 0.
func sendBatch(t *testing.T, calls, maxBytes int) []byte {
	t.Helper()
	batch := []byte{'['}
	for i := 0; calls == 0 || i < calls; i++ {
		call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": map[string]any{
			"message": map[string]any{"messageId": "flood-" + strconv.Itoa(i), "role": "ROLE_USER", "parts": []map[string]any{{"text": "call " + strconv.Itoa(i)}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 && len(batch)+len(",")+len(call)+len("]") > maxBytes {
			break
		}
		if i > 0 {
			batch = append(batch, ',')
		}
		batch = append(batch, call...)
	}
	return append(batch, ']')
}

// postRPC posts a JSON-RPC body to the agent's endpoint through the API
// server's proxy, within a minute.
func postRPC(ctx context.Context, rt *Runtime, a agentruntime.Agent, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	header := http.Header{"Content-Type": {"application/json"}, a2a.SvcParamVersion: {string(a2a.Version)}}
	return viaProxy(ctx, rt, a, http.MethodPost, "/", header, bytes.NewReader(body))
}

// TestBatchFloodIsRefused sends a running agent limited to 256Mi of memory,
// through the API server's proxy to its Service, what once got such an
// agent OOM-killed: four 8 MiB batches of tens of thousands of SendMessage
// calls at once. Each is refused whole as an invalid request naming the
// most calls a batch may hold; a batch of that many calls is answered
// call by call; and the agent's pod is the one it was, never restarted,
// its card answering.
func TestBatchFloodIsRefused(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	opts.Resources.MemoryLimit = floodMemoryLimit
	rt := newRuntime(t, opts)
	a, err := rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("Kube Flood")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(context.Background(), a.ID) })
	startHealthy(t, rt, a.ID)
	if a, err = rt.Get(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	// However the test ends, so that a flood that got through is seen to
	// have cost the agent its pod. The card first: the kubelet reports a
	// container killed a moment after the kill, and before a restarted one
	// can answer.
	defer func(before string) {
		if _, err := fetchCard(testContext(t), rt, a); err != nil {
			t.Errorf("the agent's card after the flood: %v", err)
		}
		wantNeverRestarted(t, rt, a.ID, before)
	}(a.Instance)

	flood := sendBatch(t, 0, floodBatchBytes)
	calls := bytes.Count(flood, []byte(`"method"`))
	t.Logf("%d batches at once, each of %d SendMessage calls in %d bytes", floodBatches, calls, len(flood))
	refusals := make([]string, floodBatches)
	ctx := testContext(t)
	var wg sync.WaitGroup
	for i := range refusals {
		wg.Go(func() {
			status, body, err := postRPC(ctx, rt, a, flood)
			refusals[i] = refusalOf(status, body, err)
		})
	}
	wg.Wait()
	var limit int
	for i, message := range refusals {
		m := batchCap.FindStringSubmatch(message)
		if m == nil {
			t.Errorf("flood batch %d of %d calls: %s; want a JSON-RPC error %d saying how many calls a batch may hold", i, calls, message, invalidRequest)
			continue
		}
		limit, _ = strconv.Atoi(m[1])
	}
	if t.Failed() {
		return // the deferred check tells what the flood did to the agent
	}
	if limit < 1 || limit >= calls {
		t.Fatalf("the host caps a batch at %d calls, which lets the flood's %d through", limit, calls)
	}
	t.Logf("each refused: a batch may hold at most %d calls", limit)

	status, body, err := postRPC(testContext(t), rt, a, sendBatch(t, limit, 0))
	var answers []rpcAnswer
	if err == nil && status == http.StatusOK {
		err = json.Unmarshal(body, &answers)
	}
	if err != nil || status != http.StatusOK || len(answers) != limit {
		t.Fatalf("a batch of %d calls after the flood: status %d, %d answers (%v), want %d results", limit, status, len(answers), err, limit)
	}
	for i, answer := range answers {
		if answer.Error != nil || len(answer.Result) == 0 || answer.ID != float64(i) {
			t.Fatalf("answer %d of the batch after the flood = id %v, error %+v; want the result of call %d", i, answer.ID, answer.Error, i)
		}
	}

}

// refusalOf describes the host's answer to a flood batch: the message of a
// JSON-RPC error invalidRequest answered with status 200 and id null, as a
// batch refused whole is, or what was answered instead.
func refusalOf(status int, body []byte, err error) string {
	var answer rpcAnswer
	switch {
	case err != nil:
		return "no answer: " + err.Error()
	case status != http.StatusOK:
		return fmt.Sprintf("status %d: %.200s", status, body)
	case json.Unmarshal(body, &answer) != nil || answer.Error == nil || answer.ID != nil || answer.Error.Code != invalidRequest:
		return fmt.Sprintf("answered %.200s", body)
	}
	return answer.Error.Message
}

// wantNeverRestarted fails the test unless the agent's pods are the ones
// it had, was, under their memory limit of floodMemoryLimit, ready,
// and their agent containers never restarted nor were OOM-killed.
func wantNeverRestarted(t *testing.T, rt *Runtime, id, was string) {
	t.Helper()
	pods, err := rt.pods(testContext(t), "test", id)
	if err != nil {
		t.Fatal(err)
	}
	if got := instance(pods); got != was {
		t.Errorf("the agent's pods are %s, were %s", got, was)
	}
	for _, p := range pods {
		for _, c := range p.Spec.Containers {
			if limit := c.Resources.Limits.Memory(); c.Name == agentName && limit.Cmp(resource.MustParse(floodMemoryLimit)) != 0 {
				t.Errorf("pod %s runs the agent with a memory limit of %s, want %s", p.Name, limit, floodMemoryLimit)
			}
		}
		if c := agentStatus(p); c.RestartCount != 0 || c.LastTerminationState.Terminated != nil || !c.Ready {
			t.Errorf("pod %s: agent container restarted %d times, ready %t, last ended %+v; want it running since before the flood",
				p.Name, c.RestartCount, c.Ready, c.LastTerminationState.Terminated)
		}
	}
}
