package provider

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// headerEnvAllowlist holds, by environment variable, the origins (as
// originOf writes them) that a2a_agent_card may send its value to in a
// request header. Nil, when the provider block sets none, allows every
// variable to every origin.
type headerEnvAllowlist map[string][]string

var cardHeaderEnvAllowlistPath = path.Root("card_header_env_allowlist")

func cardHeaderEnvAllowlistAttribute() schema.MapAttribute {
	return schema.MapAttribute{
		Optional:    true,
		ElementType: types.ListType{ElemType: types.StringType},
		MarkdownDescription: "The environment variables `a2a_agent_card` may read for `request_headers_from_env`, each with " +
			"the origins (`scheme://host[:port]`) its value may be sent to, such as " +
			"`{ AGENT_CARD_TOKEN = [\"https://agents.example.com\"] }`. Once it is set, even to `{}`, a data source that names " +
			"another variable, or whose `url` has another origin, fails before any request is made, naming the variable.\n\n  " +
			"Unset, any variable of the environment Terraform runs in may be sent to any URL, so that a module's data source " +
			"can take a credential away without anyone seeing its value. It binds the data sources that use this provider " +
			"configuration: a module declaring a `provider \"a2a\"` block of its own has its own.",
		Validators: []validator.Map{
			mapvalidator.KeysAre(envNameValidator()),
			mapvalidator.ValueListsAre(listvalidator.ValueStringsAre(originValidator())),
		},
	}
}

// resolveHeaderEnvAllowlist reads the provider block's attribute.
func resolveHeaderEnvAllowlist(diags *diag.Diagnostics, attr types.Map) headerEnvAllowlist {
	if refuseUnknown(diags, cardHeaderEnvAllowlistPath, attr) || attr.IsNull() {
		return nil
	}
	allowed := headerEnvAllowlist{}
	for variable, v := range attr.Elements() {
		list, ok := v.(types.List)
		if !ok || refuseUnknown(diags, cardHeaderEnvAllowlistPath.AtMapKey(variable), list) {
			continue
		}
		allowed[variable] = []string{}
		for i, e := range list.Elements() {
			origin, ok := e.(types.String)
			if !ok || refuseUnknown(diags, cardHeaderEnvAllowlistPath.AtMapKey(variable).AtListIndex(i), origin) {
				continue
			}
			if u, err := url.Parse(origin.ValueString()); err == nil {
				allowed[variable] = append(allowed[variable], originOf(u))
			}
		}
	}
	return allowed
}

// permits reports whether variable may be sent to target in header, and
// when not, why, at the header's key of request_headers_from_env.
func (a headerEnvAllowlist) permits(diags *diag.Diagnostics, header, variable string, target *url.URL) bool {
	if a == nil {
		return true
	}
	at := path.Root("request_headers_from_env").AtMapKey(header)
	origins, ok := a[variable]
	if !ok {
		diags.AddAttributeError(at, "Environment variable not allowed",
			fmt.Sprintf("Header %s is to be read from the environment variable %s, which the provider block's "+
				"card_header_env_allowlist does not name, so the provider does not read it. If the value is meant for this "+
				"agent, add %s there with the origin it may be sent to (%s); otherwise remove the header.",
				header, variable, variable, originOf(target)))
		return false
	}
	if !slices.Contains(origins, originOf(target)) {
		allowed := "no origin"
		if len(origins) > 0 {
			allowed = strings.Join(origins, ", ")
		}
		diags.AddAttributeError(at, "Origin not allowed",
			fmt.Sprintf("Header %s carries the environment variable %s, which the provider block's card_header_env_allowlist "+
				"lets the provider send to %s, not to %s, where url points. Add that origin to the variable's list if the "+
				"value is meant for it, or remove the header.", header, variable, allowed, originOf(target)))
		return false
	}
	return true
}

// originOf writes u's origin as scheme://host:port, in lower case, with
// the scheme's default port, so that equal origins are equal strings.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// originValidator accepts an origin: an http or https URL with a host and
// nothing after it but an optional "/".
func originValidator() validator.String {
	return stringRule{
		description: "must be an origin, scheme://host[:port], such as https://agents.example.com",
		summary:     "Invalid origin",
		problem: func(value, description string) string {
			u, err := url.Parse(value)
			if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "" && u.User == nil &&
				(u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == "" && !u.ForceQuery {
				return ""
			}
			return fmt.Sprintf("%q %s: an http or https URL with no user, path, query or fragment.", value, description)
		},
	}
}
