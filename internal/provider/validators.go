package provider

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/kube"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// stringRule is a string attribute validator made of one rule: known values
// the rule finds a problem with fail validation, null and unknown values
// pass (the framework validates them again once they are known).
type stringRule struct {
	description string
	summary     string
	// problem explains what is wrong with value, or returns "" when
	// nothing is.
	problem func(value, description string) string
}

var _ validator.String = stringRule{}

func (r stringRule) Description(context.Context) string { return r.description }

func (r stringRule) MarkdownDescription(context.Context) string { return r.description }

func (r stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if detail := r.problem(req.ConfigValue.ValueString(), r.description); detail != "" {
		resp.Diagnostics.AddAttributeError(req.Path, r.summary, detail)
	}
}

// durationValidator accepts Go duration strings such as "10s" or "1m30s"
// that are positive, so a typo fails the plan instead of the first stop.
func durationValidator() validator.String {
	return stringRule{
		description: `must be a positive duration such as "10s" or "1m30s"`,
		summary:     "Invalid duration",
		problem: func(value, _ string) string {
			d, err := time.ParseDuration(value)
			switch {
			case err != nil:
				return fmt.Sprintf("%q is not a duration: write a number with a unit, such as \"10s\" or \"1m30s\".", value)
			case d <= 0:
				return fmt.Sprintf("%q must be greater than zero.", value)
			}
			return ""
		},
	}
}

// durationOr is the duration an attribute that durationValidator checks
// holds, or def when it is null.
func durationOr(v types.String, def time.Duration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	// The validator has refused anything else.
	d, _ := time.ParseDuration(v.ValueString())
	return d
}

// errorValidator turns a check that returns an error into a validator
// whose message is the error's.
func errorValidator(summary string, check func(string) error) validator.String {
	return stringRule{
		description: "must be accepted by the adapter",
		summary:     summary,
		problem: func(value, _ string) string {
			if err := check(value); err != nil {
				return err.Error() + "."
			}
			return ""
		},
	}
}

// envNameValidator accepts POSIX environment variable names, the only names
// an agent config can reference.
func envNameValidator() validator.String {
	return stringRule{
		description: "must be an environment variable name: letters, digits and underscores, not starting with a digit",
		summary:     "Invalid environment variable name",
		problem: func(value, description string) string {
			if agentconfig.ValidEnvName(value) {
				return ""
			}
			return fmt.Sprintf("%q %s.", value, description)
		},
	}
}

// notOwnedValidator refuses the names of the variables the runtime sets for
// every agent (package launch): a value of the operator's would take their
// place, and the agent would listen or advertise elsewhere than its runtime
// reaches it.
func notOwnedValidator() validator.String {
	return stringRule{
		description: "must not be " + strings.Join(launch.Variables, ", ") + ", which the runtime sets for every agent",
		summary:     "Variable set by the runtime",
		problem: func(value, description string) string {
			if !slices.Contains(launch.Variables, value) {
				return ""
			}
			return fmt.Sprintf("%q: the name %s (where the agent listens and is reached). Remove it; a config reads it as ${%s} without it.", value, description, value)
		},
	}
}

// slugValidator accepts names that are their own slug, so that the name can
// serve as an id and a file name unchanged.
func slugValidator() validator.String {
	return stringRule{
		description: "must be lower-case letters, digits and single hyphens",
		summary:     "Invalid name",
		problem: func(value, description string) string {
			if value == "" {
				return "The name is empty: it " + description + ", such as \"team-secrets\"."
			}
			slug := agentconfig.Slug(value)
			if slug == value {
				return ""
			}
			detail := fmt.Sprintf("%q %s", value, description)
			if slug != "" {
				detail += fmt.Sprintf(" (try %q)", slug)
			}
			return detail + "."
		},
	}
}

// notEmptyValidator refuses the empty string where leaving the attribute
// out selects a default: "" would otherwise silently mean that default.
func notEmptyValidator(whenOmitted string) validator.String {
	return stringRule{
		description: "must not be empty",
		summary:     "Empty value",
		problem: func(value, _ string) string {
			if value != "" {
				return ""
			}
			return "The value is empty. Leave the attribute out to use " + whenOmitted + ", or give a value."
		},
	}
}

// engineRule checks a container setting with the adapter's own rule, so
// that the plan refuses, at the attribute, what the adapter would refuse
// only once the runtime is built. The rules resolve and dial nothing.
func engineRule(description, summary string, check func(string) error) validator.String {
	return stringRule{
		description: description,
		summary:     summary,
		problem: func(value, _ string) string {
			if err := check(value); err != nil {
				return err.Error() + "."
			}
			return ""
		},
	}
}

func engineHostValidator() validator.String {
	return engineRule("must be an engine address: unix:///path/to/socket, tcp://host:port, ssh://[user@]host[:port] or npipe:////./pipe/name",
		"Invalid container engine host", container.CheckHost)
}

func advertiseHostValidator() validator.String {
	return engineRule("must be a host name or an IP address", "Invalid advertise host", container.CheckAdvertiseHost)
}

func imageValidator() validator.String {
	return engineRule("must be an image reference or id", "Invalid image reference", container.CheckImage)
}

// webURLProblem explains why value is not an absolute http or https URL
// with a host, or returns "" when it is one. The data source checks its
// URLs with it when it reads, not in config validation: they often come
// from another resource's attributes, which a mock_provider in terraform
// test fills with arbitrary strings, and a read is what such a mock skips.
func webURLProblem(value string) string {
	u, err := url.Parse(value)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return ""
	}
	detail := fmt.Sprintf("%q must be an absolute http:// or https:// URL with a host", value)
	if err != nil {
		detail += fmt.Sprintf(" (%v)", err)
	}
	return detail + "."
}

// webURLValidator refuses, at plan time when the value is known, what
// webURLProblem refuses.
func webURLValidator() validator.String {
	return stringRule{
		description: "must be an absolute http:// or https:// URL with a host",
		summary:     "Invalid URL",
		problem:     func(value, _ string) string { return webURLProblem(value) },
	}
}

// resourceRule checks a setting of the kubernetes resources block: a
// positive quantity and, for a request, no more than its limit (the
// sibling attribute, else the default limit). A limit checks itself
// against the default request when no request is set, so that each
// problem is reported once, at the attribute written.
type resourceRule struct {
	resource string // cpu or memory
	kind     string // request or limit
}

func resourceValidator(resource, kind string) validator.String { return resourceRule{resource, kind} }

func (r resourceRule) Description(context.Context) string {
	return "must be a positive Kubernetes quantity, a request no greater than its limit"
}

func (r resourceRule) MarkdownDescription(ctx context.Context) string { return r.Description(ctx) }

func (r resourceRule) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if err := kube.ValidateQuantity(r.resource+"_"+r.kind, value); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid quantity", err.Error()+".")
		return
	}
	other := map[string]string{"request": "limit", "limit": "request"}[r.kind]
	var sibling types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, req.Path.ParentPath().AtName(r.resource+"_"+other), &sibling)...)
	if sibling.IsUnknown() || (r.kind == "limit" && !sibling.IsNull()) {
		return
	}
	otherValue := sibling.ValueString()
	if sibling.IsNull() {
		otherValue = kubeResourceDefault(r.resource + "_" + other)
	}
	request, limit := value, otherValue
	if r.kind == "limit" {
		request, limit = otherValue, value
	}
	if err := kube.ValidateWithinLimit(r.resource, request, limit); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Request above limit", err.Error()+".")
	}
}

// kubeResourceDefault is the default of a resources setting.
func kubeResourceDefault(name string) string {
	for _, s := range kubeResourceSettings {
		if s.name == name {
			return s.def
		}
	}
	return ""
}
