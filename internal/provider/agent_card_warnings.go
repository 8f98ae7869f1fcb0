package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
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
		fmt.Sprintf("The card at %s is usable, but departs from the specification:\n%s\nClients written to the "+
			"specification may read less of the card, or refuse it: fix these in the card the agent publishes.",
			cardURL, strings.Join(lines, "\n")))
}

// v03FieldsWarning says what an agent's card costs when its config asks for
// the A2A 0.3 fields beside the 1.0 ones: a choice each time it is planned,
// since a strict 1.0 client may refuse the whole card.
func v03FieldsWarning(cfg *agentconfig.Config) diag.Diagnostics {
	var diags diag.Diagnostics
	if cfg.Card.V03Fields {
		diags.AddAttributeWarning(path.Root("config"), "Agent card of "+cfg.ID()+" carries the A2A 0.3 fields",
			"[card] v03_fields = true writes the fields an A2A 0.3 client reads (url, preferredTransport, protocolVersion, "+
				"additionalInterfaces, security) beside the 1.0 ones, so that 0.3 clients can discover the agent. The A2A 1.0 "+
				"schema forbids them: clients that read the card strictly (schema validators, ProtoJSON that refuses unknown "+
				"fields) may refuse the whole card. Leave v03_fields out once the agent's clients speak 1.0; the agent answers "+
				"0.3 requests either way.")
	}
	return diags
}
