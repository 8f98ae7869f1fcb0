// Package steady keeps up a steady flow of calls to an agent while a test
// changes it, and counts the calls that fail: what the agent's clients
// see of the change.
package steady

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// callTimeout bounds one call: a client gives up on an agent that does not
// answer.
const callTimeout = 10 * time.Second

// keptErrors is how many errors a Result quotes.
const keptErrors = 5

// Call makes call number i.
type Call func(ctx context.Context, i int) error

// Result is what the calls of a Flow met.
type Result struct {
	Calls, Failed int
	// Errors are the first errors met, for the test's log.
	Errors []string
}

func (r Result) String() string {
	return fmt.Sprintf("%d of %d calls failed %q", r.Failed, r.Calls, r.Errors)
}

// Flow makes a call every interval, each once the one before has
// returned, until Stop.
type Flow struct {
	stop   chan struct{}
	done   sync.WaitGroup
	result Result
}

// Start begins a flow of call.
func Start(interval time.Duration, call Call) *Flow {
	f := &Flow{stop: make(chan struct{})}
	f.done.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; ; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			err := call(ctx, i)
			cancel()
			f.result.Calls++
			if err != nil {
				f.result.Failed++
				if len(f.result.Errors) < keptErrors {
					f.result.Errors = append(f.result.Errors, fmt.Sprintf("call %d: %v", i, err))
				}
			}
			select {
			case <-f.stop:
				return
			case <-tick.C:
			}
		}
	})
	return f
}

// Stop ends the flow once its call under way returns, and returns what
// the calls met.
func (f *Flow) Stop() Result {
	close(f.stop)
	f.done.Wait()
	return f.result
}

// Echo is a call that sends a numbered text through client and expects it
// echoed back, as the built-in host's echo agent does.
func Echo(client *a2aclient.Client) Call {
	return func(ctx context.Context, i int) error {
		text := fmt.Sprintf("steady call %d", i)
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
		if err != nil {
			return err
		}
		if got := a2acli.Reply(res); got != text {
			return fmt.Errorf("the agent answered %q, want the echo %q", got, text)
		}
		return nil
	}
}

// Client is an A2A SDK client of the JSON-RPC endpoint at url, reached
// through hc: the credentials of a proxy such as a cluster's API server.
func Client(ctx context.Context, url string, hc *http.Client) (*a2aclient.Client, error) {
	return a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{a2a.NewAgentInterface(url, a2a.TransportProtocolJSONRPC)},
		a2aclient.WithJSONRPCTransport(hc))
}
