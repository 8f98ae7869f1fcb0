package provider

import (
	"context"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// webURLValidator accepts absolute http and https URLs with a host, so a
// typo such as a missing scheme fails the plan rather than the read.
type webURLValidator struct{}

func (webURLValidator) Description(context.Context) string {
	return "must be an absolute http:// or https:// URL with a host"
}

func (v webURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v webURLValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return
	}
	detail := fmt.Sprintf("%q %s", raw, v.Description(ctx))
	if err != nil {
		detail += fmt.Sprintf(" (%v)", err)
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL", detail+".")
}
