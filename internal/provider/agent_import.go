package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// idShape says what an agent id looks like, for errors about a wrong one.
const idShape = "an agent id is the config's [agent] id, or else the slug of its agent.name (lower-case letters, " +
	"digits and single hyphens, such as echo-agent for \"Echo Agent\")"

// importableAgent explains why id names no agent the runtime can adopt, or
// returns nil when it names one.
func importableAgent(ctx context.Context, rt agentruntime.Runtime, id string) error {
	if slug := agentconfig.Slug(id); slug != id {
		return fmt.Errorf("%q is not an agent id: %s. Try %q", id, idShape, slug)
	}
	_, err := rt.Get(ctx, id)
	if !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return err
	}
	msg := fmt.Sprintf("the runtime the provider block selects has no agent %q: %s. Only agents this provider's runtime "+
		"recorded can be imported (an agent started by hand with a2a-agent-host --config cannot: "+
		"give its config to an a2a_agent resource instead, which starts it anew)", id, idShape)
	if agents, lerr := rt.List(ctx); lerr == nil && len(agents) > 0 {
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.ID
		}
		msg += ". Its agents: " + strings.Join(ids, ", ")
	}
	return fmt.Errorf("%s", msg)
}
