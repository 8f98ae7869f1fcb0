package provider

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestRecoverAgentsLogsAdoption proves that a fresh provider process adopts
// the agents an earlier one started and says which. It reads the log through
// a test sink rather than TF_ACC_LOG_PATH, which the plugin SDK reads once
// per process and so would depend on test order.
func TestRecoverAgentsLogsAdoption(t *testing.T) {
	ctx := context.Background()
	stateDir := t.TempDir()
	earlier, err := local.New(localOptions(t, statedirtest.Open(t, stateDir)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := earlier.Provision(ctx, agentruntime.Spec{Config: []byte(echoConfig("Recover Me", "adopted"))}); err != nil {
		t.Fatal(err)
	}
	if err := earlier.Start(ctx, "recover-me"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = earlier.Deprovision(context.Background(), "recover-me") })

	later, err := local.New(localOptions(t, statedirtest.Open(t, stateDir)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if diags := recoverAgents(tflogtest.RootLogger(ctx, &out), later); diags.HasError() || diags.WarningsCount() > 0 {
		t.Fatalf("recoverAgents: %v", diags)
	}
	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e["@message"] == "runtime ready" {
			if e["recovery"] != string(agentruntime.Adopted) || !reflect.DeepEqual(e["adopted"], []any{"recover-me"}) {
				t.Errorf("runtime ready logged %v, want recovery=adopted and adopted=[recover-me]", e)
			}
			return
		}
	}
	t.Errorf("no 'runtime ready' line in the provider log: %v", entries)
}
