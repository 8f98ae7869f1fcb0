package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// requestHeaders merges the literal headers with those read from the
// provider's environment, for a request to target; a variable allowed does
// not let go there is not read. Values read from the environment exist only
// here and in the request: the model, and so state, keeps the variable
// names.
func (m *agentCardModel) requestHeaders(ctx context.Context, allowed headerEnvAllowlist, target *url.URL, diags *diag.Diagnostics) map[string]string {
	headers := map[string]string{}
	if !m.RequestHeaders.IsNull() {
		diags.Append(m.RequestHeaders.ElementsAs(ctx, &headers, false)...)
	}
	var fromEnv map[string]string
	if !m.HeadersFromEnv.IsNull() {
		diags.Append(m.HeadersFromEnv.ElementsAs(ctx, &fromEnv, false)...)
	}
	if diags.HasError() {
		return nil
	}
	names := make([]string, 0, len(fromEnv))
	for header := range fromEnv {
		names = append(names, header)
	}
	sort.Strings(names)
	for _, header := range names {
		variable := fromEnv[header]
		if !allowed.permits(diags, header, variable, target) {
			continue
		}
		value, ok := os.LookupEnv(variable)
		if !ok {
			diags.AddAttributeError(path.Root("request_headers_from_env").AtMapKey(header), "Environment variable not set",
				fmt.Sprintf("Header %s is to be read from the environment variable %s, which is not set in the environment "+
					"Terraform runs the provider in. Export %s before running terraform, or remove the header.", header, variable, variable))
			continue
		}
		headers[header] = value
	}
	return headers
}

// headersInBoth refuses a header named in both request_headers and
// request_headers_from_env, where one value would silently win. HTTP header
// names are case-insensitive, so "authorization" and "Authorization" clash.
func headersInBoth(literal, fromEnv types.Map) diag.Diagnostics {
	var diags diag.Diagnostics
	if literal.IsNull() || literal.IsUnknown() || fromEnv.IsNull() || fromEnv.IsUnknown() {
		return diags
	}
	literalNames := map[string]string{}
	for name := range literal.Elements() {
		literalNames[http.CanonicalHeaderKey(name)] = name
	}
	for name := range fromEnv.Elements() {
		if other, ok := literalNames[http.CanonicalHeaderKey(name)]; ok {
			diags.AddAttributeError(path.Root("request_headers_from_env").AtMapKey(name), "Header set twice",
				fmt.Sprintf("Header %s is in request_headers (as %s) and in request_headers_from_env: keep it in one of them "+
					"(request_headers_from_env for a secret, whose value then stays out of Terraform state).", name, other))
		}
	}
	return diags
}
