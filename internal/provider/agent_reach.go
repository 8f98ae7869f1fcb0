package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// unreachableCardWarning warns of an agent whose card advertises interface
// URLs that do not lead to it, naming both: clients that follow the card
// would fail although the agent is healthy. Nil when the card is fine or
// was not read.
func unreachableCardWarning(a agentruntime.Agent) diag.Diagnostic {
	if a.Card == nil {
		return nil
	}
	bad := card.UnreachableInterfaces(a.Card.Card, a.Endpoint)
	if len(bad) == 0 {
		return nil
	}
	return diag.NewWarningDiagnostic("Agent "+a.ID+" advertises a URL that does not reach it",
		fmt.Sprintf("The card of agent %q advertises %s, but the runtime exposes the agent at %s. Clients that discover the agent "+
			"through its card will call the advertised URL and fail. Make the agent advertise the URL it is reached at: the runtime "+
			"sets it in the agent's environment as A2A_ADVERTISED_URL and fills in ${A2A_ADVERTISED_URL} in [runtime] command and "+
			"[runtime.env]; an agent in a container that advertises its listen address (such as http://0.0.0.0:8080) is the usual cause.",
			a.ID, strings.Join(bad, ", "), a.Endpoint))
}

// cardDeviationsWarning warns of a card that departs from the specification
// in ways that leave it usable (an empty skills list, say), listing each
// departure by JSON path. Nil when there is none.
func cardDeviationsWarning(cardURL string, parsed *card.Parsed) diag.Diagnostic {
	if parsed == nil || len(parsed.Deviations) == 0 {
		return nil
	}
	lines := make([]string, len(parsed.Deviations))
	for i, d := range parsed.Deviations {
		lines[i] = "  - " + d.String()
	}
	return diag.NewWarningDiagnostic("Agent card departs from A2A "+parsed.SpecVersion,
		fmt.Sprintf("The card at %s is usable, but departs from the specification:\n%s\nClients that select agents by their "+
			"skills or description find nothing to match; publish them in the card.", cardURL, strings.Join(lines, "\n")))
}
