package kube

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// The placeholders of Options.AdvertisedURL.
const (
	idPlaceholder        = "{id}"
	namespacePlaceholder = "{namespace}"
	scopePlaceholder     = "{scope}"
)

// ValidateAdvertisedURL refuses a template that would not give every agent
// an absolute http or https URL of its own: it must contain {id}, so that
// no two agents of a namespace share a URL.
func ValidateAdvertisedURL(template string) error {
	const format = "kubernetes advertised_url %q %s: write an absolute http:// or https:// URL containing {id}, " +
		"such as \"https://{id}.agents.example.com\" or \"https://agents.example.com/{id}\""
	if !strings.Contains(template, idPlaceholder) {
		return fmt.Errorf(format, template, "does not contain {id}, so every agent would get the same URL")
	}
	a, b := expandURL(template, "agent-a", "ns", "scope"), expandURL(template, "agent-b", "ns", "scope")
	if strings.ContainsAny(a, "{}") {
		return fmt.Errorf(format, template, "has a placeholder other than {id}, {namespace} and {scope}")
	}
	ua, err := url.Parse(a)
	if err != nil {
		return fmt.Errorf(format, template, "is not a URL once {id} is filled in ("+err.Error()+")")
	}
	if (ua.Scheme != "http" && ua.Scheme != "https") || ua.Host == "" || ua.User != nil || ua.RawQuery != "" || ua.Fragment != "" {
		return fmt.Errorf(format, template, "is not an http or https URL with a host and without user, query or fragment")
	}
	// A path such as "/{id}/.." would give two agents one URL all the same.
	ub, err := url.Parse(b)
	if err != nil || strings.EqualFold(ua.Host, ub.Host) && path.Clean("/"+ua.Path) == path.Clean("/"+ub.Path) {
		return fmt.Errorf(format, template, "gives two agents the same URL")
	}
	return nil
}

// expandURL fills in the placeholders of an advertised URL template.
func expandURL(template, id, namespace, scope string) string {
	return strings.NewReplacer(idPlaceholder, id, namespacePlaceholder, namespace, scopePlaceholder, scope).Replace(template)
}

// advertised is the URL the agent of cfg advertises: its config's
// advertised_url, else the runtime's template filled in for it; empty
// when neither is set.
func (r *Runtime) advertised(cfg *agentconfig.Config) string {
	if cfg.Server.AdvertisedURL != "" || r.opts.AdvertisedURL == "" {
		return cfg.Server.AdvertisedURL
	}
	return expandURL(r.opts.AdvertisedURL, cfg.ID(), r.opts.Namespace, r.opts.Scope)
}
