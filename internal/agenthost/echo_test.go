package agenthost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
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
		return startInProcess(t, parseConfig(t, toml), &syncBuffer{}).Endpoint()
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
				msg, ok := res.(*a2a.Message)
				if !ok {
					t.Fatalf("SendMessage result is %T, want a message", res)
				}
				if msg.Role != a2a.MessageRoleAgent || messageText(msg) != "hello, agent" {
					t.Errorf("reply = %s %q, want agent %q", msg.Role, messageText(msg), "hello, agent")
				}
			})

			t.Run("SendStreamingMessage", func(t *testing.T) {
				var texts []string
				for ev, err := range client.SendStreamingMessage(ctxFor(t), userText("stream me")) {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					if m, ok := ev.(*a2a.Message); ok {
						texts = append(texts, messageText(m))
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
				msg := res.(*a2a.Message)
				if len(msg.Parts) != 2 || msg.Parts[0].Text() != "one" || msg.Parts[1].Text() != "two" {
					t.Errorf("reply parts = %v, want [one two]", msg.Parts)
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

// TestStreamingIsServerSentEvents checks the wire, not the SDK client, which
// quietly falls back to a plain call when a card does not declare streaming.
func TestStreamingIsServerSentEvents(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), &syncBuffer{})
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage", "params": sendParams("over SSE")})
	req, _ := http.NewRequestWithContext(ctxFor(t), http.MethodPost, h.Endpoint(), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	var events []rpcResponse
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var ev rpcResponse
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		events = append(events, ev)
	}
	if len(events) != 1 || events[0].Error != nil || events[0].ID != "s1" {
		t.Fatalf("events = %+v, want one result for id s1", events)
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(events[0].Result, &sr); err != nil {
		t.Fatal(err)
	}
	if m, ok := sr.Event.(*a2a.Message); !ok || messageText(m) != "over SSE" {
		t.Errorf("event = %#v, want the echoed message", sr.Event)
	}
}
