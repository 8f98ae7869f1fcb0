package provider

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/steady"
)

// callInterval is how often a callFlow calls the agent.
const callInterval = 50 * time.Millisecond

// callFlow is a steady flow of echo calls to the agent, begun by a step's
// PreConfig and ended after a later apply: what the agent's clients see of
// what the applies between do to it.
type callFlow struct {
	t      *testing.T
	client func(ctx context.Context) (*a2aclient.Client, error)
	flow   *steady.Flow
	call   steady.Call
}

// start begins the flow, once the agent answers a first call.
func (f *callFlow) start() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := f.client(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := steady.Echo(client)(ctx, -1); err != nil {
		f.t.Fatalf("the agent does not answer before the flow of calls begins: %v", err)
	}
	f.call = steady.Echo(client)
	f.flow = steady.Start(callInterval, f.call)
}

// stop ends the flow and returns what its calls met.
func (f *callFlow) stop() steady.Result {
	result := f.flow.Stop()
	f.flow = nil
	return result
}

// checkNoneFailed ends the flow, and fails unless each of at least
// minCalls calls was answered.
func (f *callFlow) checkNoneFailed(what string, minCalls int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		result := f.stop()
		f.t.Logf("%s: %v", what, result)
		if result.Failed > 0 || result.Calls < minCalls {
			return fmt.Errorf("%s: %v, want none of at least %d failed", what, result, minCalls)
		}
		return nil
	}
}

// checkReport ends the flow and reports how many of its calls failed,
// which is not held to a number; it fails unless a call made once the
// flow ended, after the apply, is answered: the agent serves again. The
// flow's own last call may have begun while the apply still restarted it.
func (f *callFlow) checkReport(what string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		result := f.stop()
		f.t.Logf("%s: %v", what, result)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := f.call(ctx, result.Calls); err != nil {
			return fmt.Errorf("%s: %v, and a call after the apply failed: the agent does not answer (%w)", what, result, err)
		}
		return nil
	}
}

// endpointClient is a client of the agent at the endpoint *endpoint holds
// once a check has recorded it.
func endpointClient(endpoint *string) func(ctx context.Context) (*a2aclient.Client, error) {
	return func(ctx context.Context) (*a2aclient.Client, error) {
		return steady.Client(ctx, *endpoint, &http.Client{Timeout: 10 * time.Second})
	}
}

// recordEndpoint is a check that records the agent's endpoint in *endpoint.
func recordEndpoint(endpoint *string) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(agentAddr, "endpoint", func(v string) error {
		*endpoint = v
		return nil
	})
}

// restartInPlaceSteps create an agent, then change its config under a flow
// of calls, which the adapter restarts in place: the steps report how many
// calls fail, and check that the agent serves the new config after.
func restartInPlaceSteps(t *testing.T, acc *accTest, name, adapter string) []resource.TestStep {
	var endpoint string
	f := &callFlow{t: t, client: endpointClient(&endpoint)}
	return []resource.TestStep{
		{
			Config: acc.agent(echoConfig(name, "before the change")),
			Check:  resource.ComposeAggregateTestCheckFunc(resource.TestCheckResourceAttr(agentAddr, "health", "healthy"), recordEndpoint(&endpoint)),
		},
		{
			PreConfig: f.start,
			Config:    acc.agent(echoConfig(name, "after the change")),
			Check: resource.ComposeAggregateTestCheckFunc(
				f.checkReport("a config change on the "+adapter+" adapter, restarted in place"),
				resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
				checkCard(descriptionIs("after the change")),
			),
		},
	}
}

// TestAccAgent_restartInPlace: the local adapter restarts an agent whose
// config changes in place, so calls made meanwhile fail; the test reports
// how many, and that the agent serves the new config after.
func TestAccAgent_restartInPlace(t *testing.T) {
	acc := newAccTest(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps:                    restartInPlaceSteps(t, acc, "Restart In Place", "local"),
	})
}

// TestAccContainerAgent_restartInPlace: as TestAccAgent_restartInPlace,
// on the container adapter.
func TestAccContainerAgent_restartInPlace(t *testing.T) {
	c := newContainerAccTest(t)
	name, _ := c.agentName("Restart In Place")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps:                    restartInPlaceSteps(t, c.accTest, name, "container"),
	})
}
