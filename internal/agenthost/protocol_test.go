package agenthost

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// TestUnimplementedMethodsAnswerHonestly checks that what the host does
// not do gets the error the A2A specification prescribes (section 3.3.4).
func TestUnimplementedMethodsAnswerHonestly(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	pushConfig := map[string]any{"taskId": "t1", "url": "https://example.invalid/hook"}
	cases := []struct {
		method   string
		params   any
		wantCode int
	}{
		{"CreateTaskPushNotificationConfig", pushConfig, -32003},
		{"GetTaskPushNotificationConfig", map[string]any{"taskId": "t1", "id": "c1"}, -32003},
		{"ListTaskPushNotificationConfigs", map[string]any{"taskId": "t1"}, -32003},
		{"DeleteTaskPushNotificationConfig", map[string]any{"taskId": "t1", "id": "c1"}, -32003},
		{"GetExtendedAgentCard", map[string]any{}, -32004},
		{"GetTask", map[string]any{"id": "no-such-task"}, -32001},
		{"CancelTask", map[string]any{"id": "no-such-task"}, -32001},
		{"NoSuchMethod", map[string]any{}, -32601},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			res := postRPC(t, h.Endpoint(), tc.method, tc.params, nil)
			body := res.body
			var rpc rpcResponse
			if err := json.Unmarshal(body, &rpc); err != nil {
				t.Fatalf("status %d body %s: %v", res.status, body, err)
			}
			if rpc.Error == nil || rpc.Error.Code != tc.wantCode {
				t.Errorf("%s answered %s, want error code %d", tc.method, body, tc.wantCode)
			}
		})
	}

	t.Run("through the SDK client", func(t *testing.T) {
		client, _ := newClient(t, h.Endpoint(), nil)
		_, err := client.CreateTaskPushConfig(ctxFor(t), &a2a.PushConfig{TaskID: "t1", URL: "https://example.invalid/hook"})
		if !errors.Is(err, a2a.ErrPushNotificationNotSupported) {
			t.Errorf("CreateTaskPushConfig: err = %v, want %v", err, a2a.ErrPushNotificationNotSupported)
		}
		// GetExtendedAgentCard is not tried here: the SDK client answers it
		// from the card without calling the host.
	})
}

// TestServedCardIsTheDerivedCard checks the host publishes exactly what
// internal/card derives and encodes for its endpoint, and that the card
// claims exactly the optional capabilities the host implements.
func TestServedCardIsTheDerivedCard(t *testing.T) {
	cfg := parseConfig(t, echoConfig)
	h := startInProcess(t, cfg, Options{})
	served := getCard(t, h.CardURL())
	derived, err := card.Derive(cfg, h.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	want, err := card.MarshalCard(derived, card.Strict10)
	if err != nil {
		t.Fatal(err)
	}
	if string(served) != string(want) {
		t.Errorf("served card\n%s\nwant the derived card\n%s", served, want)
	}
	var c a2a.AgentCard
	if err := json.Unmarshal(served, &c); err != nil {
		t.Fatal(err)
	}
	caps := c.Capabilities
	if host := capabilitiesOf(cfg); caps.Streaming != host.Streaming || caps.PushNotifications != host.PushNotifications || caps.ExtendedAgentCard != host.ExtendedAgentCard {
		t.Errorf("card capabilities = %+v, but the host implements %+v", caps, host)
	}
	if len(c.SupportedInterfaces) == 0 || c.SupportedInterfaces[0].URL != h.Endpoint() {
		t.Errorf("card interfaces = %+v, want JSON-RPC at %s", c.SupportedInterfaces, h.Endpoint())
	}
	if u, err := url.Parse(h.Endpoint()); err != nil || u.Port() == "" || u.Port() == "0" {
		t.Errorf("endpoint on a free port = %s, want the port the host bound", h.Endpoint())
	}
}

func getCard(t *testing.T, cardURL string) []byte {
	t.Helper()
	res := httpGet(t, cardURL)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", cardURL, res.status, res.body)
	}
	return res.body
}

// TestSignedCard signs the card with [card] signing_key; the published
// bytes verify with the public key.
func TestSignedCard(t *testing.T) {
	keyPEM, pubPEM := signingKey(t)
	t.Setenv("CARD_SIGNING_KEY", string(keyPEM))

	h := startInProcess(t, parseConfig(t, echoConfig+"\n[card]\nsigning_key = \"${CARD_SIGNING_KEY}\"\n"), Options{})
	if _, err := card.Verify(getCard(t, h.CardURL()), [][]byte{pubPEM}); err != nil {
		t.Errorf("served card does not verify: %v", err)
	}
	unsigned := startInProcess(t, parseConfig(t, echoConfig), Options{})
	if _, err := card.Verify(getCard(t, unsigned.CardURL()), [][]byte{pubPEM}); !errors.Is(err, card.ErrNotSigned) {
		t.Errorf("card without signing_key: Verify err = %v, want %v", err, card.ErrNotSigned)
	}
}

// TestEndpointPath serves JSON-RPC at the advertised URL's path, and the
// card also under it, where SDK resolvers look.
func TestEndpointPath(t *testing.T) {
	port := freePort(t)
	cases := []struct{ name, advertised string }{
		{"root", "http://127.0.0.1:" + strconv.Itoa(port)},
		{"root with slash", "http://127.0.0.1:" + strconv.Itoa(port) + "/"},
		{"sub-path", "http://127.0.0.1:" + strconv.Itoa(port) + "/agents/echo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseConfig(t, echoConfig)
			cfg.Server.HTTPPort = port
			cfg.Server.AdvertisedURL = tc.advertised
			startInProcess(t, cfg, Options{})
			client, _ := newClient(t, tc.advertised, nil)
			res, err := client.SendMessage(ctxFor(t), userText("path"))
			if err != nil {
				t.Fatalf("SendMessage at %s: %v", tc.advertised, err)
			}
			if resultText(res) != "path" {
				t.Errorf("reply = %#v", res)
			}
			if status := httpGet(t, "http://127.0.0.1:"+strconv.Itoa(port)+"/elsewhere").status; status != http.StatusNotFound {
				t.Errorf("unknown path: status %d, want 404", status)
			}
		})
	}
}
