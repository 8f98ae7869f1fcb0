package agentconfig

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// DefaultExportInterval is how often the host sends its metrics to the
// OTLP endpoint when [telemetry] export_interval is left out: the
// OpenTelemetry SDK's own default, so a collector sees what it expects.
const DefaultExportInterval = time.Minute

// Telemetry says where the built-in host reports its traces and metrics.
// The zero value reports nothing: telemetry is opt-in, so an agent never
// sends anything anywhere its operator did not name.
type Telemetry struct {
	// OTLPEndpoint is the base URL of an OTLP/HTTP collector, such as
	// http://127.0.0.1:4318; traces go to /v1/traces and metrics to
	// /v1/metrics below it, as OTEL_EXPORTER_OTLP_ENDPOINT means.
	OTLPEndpoint string `toml:"otlp_endpoint"`
	// OTLPHeaders are sent with every export, typically the collector's
	// credentials, which should come from a variable.
	OTLPHeaders map[string]string `toml:"otlp_headers"`
	// ServiceName names the agent to the collector; empty means its id.
	ServiceName string `toml:"service_name"`
	// ExportInterval is how often metrics are exported; spans are sent
	// at least that often.
	ExportInterval string `toml:"export_interval"`
	// MetricsListen is the host:port of a Prometheus /metrics endpoint,
	// apart from the agent's own port so that it can stay private; empty
	// means none.
	MetricsListen string `toml:"metrics_listen"`
}

// Enabled reports whether the host reports anything at all.
func (t Telemetry) Enabled() bool { return t.OTLPEndpoint != "" || t.MetricsListen != "" }

// ExportIntervalDuration is ExportInterval parsed; validation has checked
// it.
func (t Telemetry) ExportIntervalDuration() time.Duration {
	d, err := time.ParseDuration(t.ExportInterval)
	if err != nil || d <= 0 {
		return DefaultExportInterval
	}
	return d
}

// validateTelemetry checks the values of [telemetry] that are known
// before the start; a value holding a reference is checked by the host
// once expanded (Telemetry.Check).
func (c *Config) validateTelemetry(add func(key, msg string)) {
	if _, ok := newKeyIndex(c.raw).offsets["telemetry"]; ok && !c.Telemetry.Enabled() {
		add("telemetry", "[telemetry] names neither otlp_endpoint nor metrics_listen, so it would report nothing: set one, or remove the table")
	}
	c.Telemetry.check(true, add)
}

// Check reports the problems of an expanded [telemetry] table, for the
// host to refuse before it starts: a reference may have expanded to
// anything.
func (t Telemetry) Check(add func(key, msg string)) { t.check(false, add) }

// check reports each problem with the table's values; with unexpanded
// set, values holding references are left for the host.
func (t Telemetry) check(unexpanded bool, add func(key, msg string)) {
	skip := func(v string) bool { return v == "" || unexpanded && HasReference(v) }
	if u := t.OTLPEndpoint; !skip(u) {
		if problem := checkOTLPEndpoint(u); problem != "" {
			add("telemetry.otlp_endpoint", problem)
		}
	}
	if len(t.OTLPHeaders) > 0 && t.OTLPEndpoint == "" {
		add("telemetry.otlp_headers", "telemetry.otlp_headers are sent to the OTLP collector, and otlp_endpoint names none: set otlp_endpoint, or remove otlp_headers")
	}
	for name := range t.OTLPHeaders {
		if !isHeaderName(name) {
			add("telemetry.otlp_headers."+name,
				fmt.Sprintf("telemetry.otlp_headers key %q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)", name))
		}
	}
	if d := t.ExportInterval; !skip(d) {
		if v, err := time.ParseDuration(d); err != nil || v <= 0 {
			add("telemetry.export_interval", fmt.Sprintf("telemetry.export_interval %q is not a positive duration such as \"30s\" or \"1m\"", d))
		}
	}
	if l := t.MetricsListen; !skip(l) {
		if problem := checkListen(l); problem != "" {
			add("telemetry.metrics_listen", problem)
		}
	}
}

func checkOTLPEndpoint(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Sprintf("telemetry.otlp_endpoint %q is not an absolute http(s) URL such as http://127.0.0.1:4318 (the collector's OTLP/HTTP receiver)", raw)
	case u.User != nil:
		// Credentials in the URL would show wherever the URL does (logs,
		// errors); headers keep them out of sight.
		return "telemetry.otlp_endpoint holds credentials in the URL: send them in telemetry.otlp_headers instead, such as Authorization = \"${OTLP_AUTH}\""
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Sprintf("telemetry.otlp_endpoint %q has a query or fragment: name the collector's base URL; /v1/traces and /v1/metrics are added to its path", raw)
	}
	return ""
}

func checkListen(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("telemetry.metrics_listen %q is not host:port, such as \"127.0.0.1:9464\" (or \":9464\" for every interface)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Sprintf("telemetry.metrics_listen %q: port %q is not a TCP port (1-65535, or 0 for a free one)", addr, port)
	}
	return ""
}

// isHeaderName reports whether s is an HTTP field name (RFC 9110 token).
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		switch c {
		case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
			continue
		}
		return false
	}
	return true
}
