package agentruntime

import "github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"

// SettingsRunner is a Runtime whose provider-level settings shape the
// objects each agent runs as (its image, its limits, its grace period), so
// that a change of one of them is a change of the agents it shapes, for a
// plan to show and an apply to roll out. A runtime that no setting of
// which reaches its agents' objects is not one: Agent.Settings stays nil.
type SettingsRunner interface {
	// AgentSettings are the settings the objects of the agent of cfg, with
	// workload w and replicas instances, are made with now, each under the
	// name of the attribute that sets it (such as "kubernetes.base_image"),
	// valued as Agent.Settings reads them back off the objects.
	AgentSettings(cfg *agentconfig.Config, w Workload, replicas int) map[string]string
}
