package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
)

var _ provider.ProviderWithFunctions = (*a2aProvider)(nil)

// Functions are callable as provider::a2a::<name> from Terraform 1.8 on;
// older CLIs never ask for them.
func (p *a2aProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newAgentIDFunction}
}

var _ provider.ProviderWithListResources = (*a2aProvider)(nil)

// ListResources serve terraform query, from Terraform 1.14 on.
func (p *a2aProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{newAgentListResource}
}

var _ provider.ProviderWithActions = (*a2aProvider)(nil)

// Actions run on terraform apply -invoke and from action_trigger blocks,
// from Terraform 1.14 on.
func (p *a2aProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{newMessageAction, newAgentRestartAction}
}
