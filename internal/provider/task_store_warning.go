package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// taskStoreWarning warns of an agent of the built-in host that runs more
// than one replica with its tasks in each replica's memory: calls reach
// replicas independently (an ingress or gateway picks endpoints itself),
// so a task call after the SendMessage that made the task usually reaches
// a replica that never saw it. An agent that answers with messages makes
// no tasks, and a brought agent keeps its own.
func taskStoreWarning(cfg *agentconfig.Config, replicas int) diag.Diagnostics {
	var diags diag.Diagnostics
	if replicas < 2 || cfg.Tasks.Store != "" || cfg.Runtime.Brought() ||
		cfg.Handler.Type == agentconfig.HandlerEcho && cfg.Handler.Echo.Reply == agentconfig.EchoReplyMessage {
		return diags
	}
	diags.AddAttributeWarning(path.Root("replicas"), "Task calls may miss: replicas without a task store",
		fmt.Sprintf("Agent %q runs %d replicas, and each keeps its tasks in its own memory. Calls reach replicas independently, so "+
			"a GetTask, CancelTask, SubscribeToTask or ListTasks after the SendMessage that made a task reaches a replica that "+
			"never saw it about %d times in %d, and answers that there is no such task. Give the replicas one task store: set "+
			"[tasks] store in the agent config to a PostgreSQL connection string, as a reference to a variable its "+
			"a2a_env_allowlist lets through (store = \"$${TASKS_STORE}\" in a config written inline, \"${TASKS_STORE}\" in one "+
			"read with file()). Or run one replica.", cfg.ID(), replicas, replicas-1, replicas))
	return diags
}
