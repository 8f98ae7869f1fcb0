package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// durationValidator accepts Go duration strings such as "10s" or "1m30s"
// that are positive, so a typo fails the plan instead of the first stop.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return `must be a positive duration such as "10s" or "1m30s"`
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not a duration: write a number with a unit, such as \"10s\" or \"1m30s\".", req.ConfigValue.ValueString()))
	case d <= 0:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q must be greater than zero.", req.ConfigValue.ValueString()))
	}
}

// envNameValidator accepts POSIX environment variable names, the only names
// an agent config can reference.
type envNameValidator struct{}

func (envNameValidator) Description(context.Context) string {
	return "must be an environment variable name: letters, digits and underscores, not starting with a digit"
}

func (v envNameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v envNameValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if name := req.ConfigValue.ValueString(); !agentconfig.ValidEnvName(name) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid environment variable name",
			fmt.Sprintf("%q %s.", name, v.Description(ctx)))
	}
}

// slugValidator accepts names that are their own slug, so that the name can
// serve as an id and a file name unchanged.
type slugValidator struct{}

func (slugValidator) Description(context.Context) string {
	return "must be lower-case letters, digits and single hyphens"
}

func (v slugValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v slugValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	name := req.ConfigValue.ValueString()
	if slug := agentconfig.Slug(name); slug != name {
		detail := fmt.Sprintf("%q %s", name, v.Description(ctx))
		if slug != "" {
			detail += fmt.Sprintf(" (try %q)", slug)
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name", detail+".")
	}
}
