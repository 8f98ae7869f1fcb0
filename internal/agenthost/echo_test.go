package agenthost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// hostStarters run the same host in this process and as a real process, so
// what the tests see is what an operator gets.
var hostStarters = []struct {
	name  string
	start func(t *testing.T, toml string) (endpoint string)
}{
	{"in-process", func(t *testing.T, toml string) string {
		return startInProcess(t, parseConfig(t, toml), Options{}).Endpoint()
	}},
	{"process", func(t *testing.T, toml string) string {
		return startHostProcess(t, toml, nil).endpoint
	}},
}

func TestEchoThroughSDKClient(t *testing.T) {
	for _, hs := range hostStarters {
		t.Run(hs.name, func(t *testing.T) {
			endpoint := hs.start(t, echoConfig)
			client, card := newClient(t, endpoint, nil)
			if card.Name != "Echo Agent" {
				t.Errorf("card name = %q, want %q", card.Name, "Echo Agent")
			}

			t.Run("SendMessage", func(t *testing.T) {
				res, err := client.SendMessage(ctxFor(t), userText("hello, agent"))
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				task, ok := res.(*a2a.Task)
				if !ok {
					t.Fatalf("SendMessage result is %T, want a task", res)
				}
				if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || resultText(res) != "hello, agent" {
					t.Errorf("reply = %s task with %d artifacts saying %q, want a completed task with one artifact %q",
						task.Status.State, len(task.Artifacts), resultText(res), "hello, agent")
				}
			})

			t.Run("SendStreamingMessage", func(t *testing.T) {
				var texts []string
				for ev, err := range client.SendStreamingMessage(ctxFor(t), userText("stream me")) {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
						texts = append(texts, partsText(a.Artifact.Parts))
					}
				}
				if len(texts) != 1 || texts[0] != "stream me" {
					t.Errorf("streamed replies = %q, want [\"stream me\"]", texts)
				}
			})

			t.Run("multiple text parts come back in order", func(t *testing.T) {
				req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("one"), a2a.NewTextPart("two"))}
				res, err := client.SendMessage(ctxFor(t), req)
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				task := res.(*a2a.Task)
				if parts := task.Artifacts[0].Parts; len(parts) != 2 || parts[0].Text() != "one" || parts[1].Text() != "two" {
					t.Errorf("reply parts = %v, want [one two]", parts)
				}
			})

			t.Run("non-text part is refused", func(t *testing.T) {
				req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"k": 1}))}
				_, err := client.SendMessage(ctxFor(t), req)
				if !errors.Is(err, a2a.ErrUnsupportedContentType) {
					t.Errorf("SendMessage with a data part: err = %v, want %v", err, a2a.ErrUnsupportedContentType)
				}
			})
		})
	}
}

func TestEchoAsMessage(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig+"\n[handler.echo]\nreply = \"message\"\n"), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	res, err := client.SendMessage(ctxFor(t), userText("just a message"))
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	msg, ok := res.(*a2a.Message)
	if !ok || msg.Role != a2a.MessageRoleAgent || messageText(msg) != "just a message" {
		t.Errorf("reply = %#v, want an agent message %q", res, "just a message")
	}
}

// TestStreamingIsServerSentEvents checks the wire, not the SDK client, which
// quietly falls back to a plain call when a card does not declare streaming.
func TestStreamingIsServerSentEvents(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage", "params": sendParams("over SSE")})
	req, _ := http.NewRequestWithContext(ctxFor(t), http.MethodPost, h.Endpoint(), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(a2a.SvcParamVersion, string(a2a.Version))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	events := sseEvents(t, body)
	// The task as submitted, its artifact, its completion.
	if len(events) != 3 {
		t.Fatalf("events = %+v, want three", events)
	}
	var echoed string
	for _, ev := range events {
		if ev.Error != nil || ev.ID != "s1" {
			t.Fatalf("event %+v, want a result for id s1", ev)
		}
		var sr a2a.StreamResponse
		if err := json.Unmarshal(ev.Result, &sr); err != nil {
			t.Fatal(err)
		}
		if a, ok := sr.Event.(*a2a.TaskArtifactUpdateEvent); ok {
			echoed += partsText(a.Artifact.Parts)
		}
	}
	if echoed != "over SSE" {
		t.Errorf("streamed artifact says %q, want the echo", echoed)
	}
}
