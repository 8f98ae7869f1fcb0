package card

import (
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// UnreachableInterfaces returns the HTTP interface URLs of c that do not
// lead to endpoint, where the runtime exposes the agent: another scheme,
// host or port. The classic case is an agent in a container advertising
// the address it listens on inside it (http://0.0.0.0:8080). Paths are not
// compared: an agent may serve its protocol below its base URL. Loopback
// names are taken as one host.
func UnreachableInterfaces(c *a2a.AgentCard, endpoint string) []string {
	want, ok := origin(endpoint)
	if !ok || c == nil {
		return nil
	}
	var out []string
	for _, iface := range c.SupportedInterfaces {
		if iface == nil {
			continue
		}
		got, ok := origin(iface.URL)
		if ok && got != want {
			out = append(out, iface.URL)
		}
	}
	return out
}

// origin is the scheme, host and port of an http(s) URL, with default
// ports made explicit and loopback names made one.
func origin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		host = "loopback"
	}
	return u.Scheme + "://" + net.JoinHostPort(host, port), true
}
