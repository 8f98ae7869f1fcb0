package contracttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Brought agents are programs the operator brings, here the official A2A Go
// SDK's a2a tool. serveArgs follow `a2a serve`; the harness adds where the
// agent listens and the card it serves.
var (
	echoServe = []string{"--echo", "--transport", "jsonrpc"}
	// Without --echo, --exec or --proxy the tool refuses to serve and exits.
	exitServe = []string{"--transport", "jsonrpc"}
)

// broughtCard is a complete card for a brought agent named name.
func broughtCard(name string) []byte {
	return []byte(`{"name":"` + name + `","description":"A brought agent","version":"1.0.0",` +
		`"supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
		`"skills":[{"id":"echo","name":"echo","description":"Echoes","tags":["echo"]}]}`)
}

// testBroughtLifecycle runs a brought agent through start, health read from
// its own card, and stop, as the built-in host goes.
func testBroughtLifecycle(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provisionSpec(t, rt, agentruntime.Spec{Config: h.Brought(t, "Contract Brought", echoServe, broughtCard("Contract Brought"))})
	if a.Running {
		t.Errorf("Provision started the agent: %+v", a)
	}
	startHealthy(t, rt, a.ID)
	got, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Card == nil || got.Card.Card.Name != "Contract Brought" {
		t.Errorf("Get of a healthy brought agent = card %+v, want the card it serves", got.Card)
	}
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}

// testBroughtInvalidCard checks a brought agent whose card answers invalid
// never reads healthy, and that its problems are named by JSON path.
func testBroughtInvalidCard(t *testing.T, h Harness) {
	rt := h.New(t)
	config := h.Brought(t, "Contract Bad Card", echoServe, []byte(`{"name":"Contract Bad Card","version":"1"}`))
	a := provisionSpec(t, rt, agentruntime.Spec{Config: config})
	err := startThenWait(t, rt, a.ID)
	var invalid *card.ValidationError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "$.supportedInterfaces") {
		t.Fatalf("start of an agent serving an invalid card = %v, want the card's problems by JSON path", err)
	}
	got, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Health == agentruntime.HealthHealthy || !errors.As(got.CardError, &invalid) {
		t.Errorf("Get = health %s, card error %v; want not healthy, with the card's problems", got.Health, got.CardError)
	}
}

// testBroughtExitsAtOnce checks a brought program that exits at once fails
// its start and never reads healthy (an engine's restart policy may still be
// trying it), and that a stop then leaves it stopped.
func testBroughtExitsAtOnce(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provisionSpec(t, rt, agentruntime.Spec{Config: h.Brought(t, "Contract Exits", exitServe, broughtCard("Contract Exits"))})
	if err := startThenWait(t, rt, a.ID); err == nil {
		t.Fatal("start of a program that exits at once succeeded")
	}
	got, err := rt.Get(ctx(t), a.ID)
	if err != nil || got.Health == agentruntime.HealthHealthy {
		t.Fatalf("Get after the failed start: health %s, %v; want not healthy", got.Health, err)
	}
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}

// startThenWait starts the agent and waits for it to be healthy, returning
// the first error of the two.
func startThenWait(t *testing.T, rt agentruntime.Runtime, id string) error {
	t.Helper()
	if err := rt.Start(ctx(t), id); err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(context.Background(), healthyWithin)
	defer cancel()
	_, err := agentruntime.WaitHealthy(wait, rt, id)
	return err
}
