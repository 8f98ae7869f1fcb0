package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// depsFrom reads the provider data Configure produced. Nil data is normal:
// Terraform validates resources before the provider is configured.
func depsFrom(data any) (*runtimeDeps, diag.Diagnostics) {
	var diags diag.Diagnostics
	if data == nil {
		return nil, diags
	}
	deps, ok := data.(*runtimeDeps)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *runtimeDeps, got %T. This is a bug in the provider; please report it.", data))
	}
	return deps, diags
}
