// Package provider is the Terraform surface of the A2A provider. It
// translates between Terraform and the runtime port and holds no process or
// engine logic of its own.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/a2a-terraform/a2a"

// New returns a constructor of the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &a2aProvider{version: version} }
}

type a2aProvider struct {
	version string
}

func (p *a2aProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "a2a"
	resp.Version = p.version
}

func (p *a2aProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Description: "Runs A2A agents as local processes or containers."}
}

func (p *a2aProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *a2aProvider) Resources(context.Context) []func() resource.Resource { return nil }

func (p *a2aProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
