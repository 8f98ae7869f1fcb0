package agentconfig

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTelemetryIsOptIn(t *testing.T) {
	cfg, err := Parse([]byte("[agent]\nname = \"a\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Telemetry.Enabled() {
		t.Errorf("a config without [telemetry] reports: %+v", cfg.Telemetry)
	}
	cfg, err = Parse([]byte("[agent]\nname = \"a\"\n[telemetry]\notlp_endpoint = \"https://collector.example:4318/base\"\nservice_name = \"svc\"\n" +
		"export_interval = \"15s\"\nmetrics_listen = \"127.0.0.1:9464\"\n[telemetry.otlp_headers]\nAuthorization = \"${OTLP_AUTH}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Telemetry.Enabled() || cfg.Telemetry.ExportIntervalDuration() != 15*time.Second || cfg.Telemetry.OTLPHeaders["Authorization"] != "${OTLP_AUTH}" {
		t.Errorf("telemetry read as %+v", cfg.Telemetry)
	}
	if (Telemetry{}).ExportIntervalDuration() != DefaultExportInterval {
		t.Error("no export_interval is not the default")
	}
}

// TestTelemetryProblemsArePlaced checks each refusal of [telemetry] names
// the key and where the config writes it.
func TestTelemetryProblemsArePlaced(t *testing.T) {
	const head = "[agent]\nname = \"a\"\n[telemetry]\n" // the table's keys start on line 4
	tests := []struct {
		name, table, key string
		line, column     int
		text             string
	}{
		{"an endpoint that is no URL", `otlp_endpoint = "collector:4318"`, "telemetry.otlp_endpoint", 4, 1,
			`telemetry.otlp_endpoint "collector:4318" is not an absolute http(s) URL`},
		{"an endpoint of another scheme", `otlp_endpoint = "grpc://collector:4317"`, "telemetry.otlp_endpoint", 4, 1, "http(s) URL"},
		{"credentials in the endpoint", `otlp_endpoint = "https://user:pw@collector:4318"`, "telemetry.otlp_endpoint", 4, 1,
			"holds credentials in the URL: send them in telemetry.otlp_headers"},
		{"a query in the endpoint", `otlp_endpoint = "https://collector:4318/?a=b"`, "telemetry.otlp_endpoint", 4, 1, "has a query or fragment"},
		{"an interval of no time", "otlp_endpoint = \"http://c:4318\"\nexport_interval = \"0s\"", "telemetry.export_interval", 5, 1,
			`telemetry.export_interval "0s" is not a positive duration`},
		{"an interval that is no duration", "otlp_endpoint = \"http://c:4318\"\nexport_interval = \"often\"", "telemetry.export_interval", 5, 1, "not a positive duration"},
		{"a listener without a port", `metrics_listen = "9464"`, "telemetry.metrics_listen", 4, 1, `telemetry.metrics_listen "9464" is not host:port`},
		{"a listener on no TCP port", `metrics_listen = ":70000"`, "telemetry.metrics_listen", 4, 1, `port "70000" is not a TCP port`},
		{"headers with nowhere to go", "metrics_listen = \":9464\"\n[telemetry.otlp_headers]\nX-Key = \"k\"", "telemetry.otlp_headers", 5, 1,
			"otlp_endpoint names none"},
		{"a header name with a space", "otlp_endpoint = \"http://c:4318\"\n[telemetry.otlp_headers]\n\"X Key\" = \"k\"", "telemetry.otlp_headers.X Key", 6, 1,
			`"X Key" is not an HTTP header name`},
		{"a table that reports nothing", `service_name = "svc"`, "telemetry", 3, 1, "names neither otlp_endpoint nor metrics_listen"},
		{"a misspelt key", "otlp_endpont = \"http://c:4318\"", "telemetry.otlp_endpont", 4, 1, `did you mean "otlp_endpoint"?`},
		{"a port as a number", "metrics_listen = 9464", "telemetry.metrics_listen", 4, 18, "a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(head + tc.table + "\n"))
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse() = %v, want a config error", err)
			}
			for _, p := range cerr.Problems {
				if p.Key == tc.key {
					if p.Line != tc.line || p.Column != tc.column || !strings.Contains(p.Message, tc.text) {
						t.Errorf("problem %s, want line %d, column %d: %s", p, tc.line, tc.column, tc.text)
					}
					return
				}
			}
			t.Errorf("no problem with %s in %v", tc.key, err)
		})
	}
}

// TestTelemetryLeavesReferencesToTheHost checks values from variables
// pass Parse and are checked once expanded.
func TestTelemetryLeavesReferencesToTheHost(t *testing.T) {
	cfg, err := Parse([]byte("[agent]\nname = \"a\"\n[telemetry]\notlp_endpoint = \"${OTLP_URL}\"\nexport_interval = \"${EVERY:-30s}\"\nmetrics_listen = \"${METRICS}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OTLP_URL": "collector", "METRICS": "127.0.0.1:9464"}
	if err := cfg.Expand(func(name string) (string, bool) { v, ok := env[name]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	var keys []string
	cfg.Telemetry.Check(func(key, _ string) { keys = append(keys, key) })
	if len(keys) != 1 || keys[0] != "telemetry.otlp_endpoint" {
		t.Errorf("expanded problems %v, want telemetry.otlp_endpoint alone", keys)
	}
}

func TestTelemetryIsRefusedForABroughtAgent(t *testing.T) {
	_, err := Parse([]byte("[agent]\nname = \"a\"\n[runtime]\ncommand = [\"./agent\"]\n[telemetry]\nmetrics_listen = \":9464\"\n"))
	if err == nil || !strings.Contains(err.Error(), "[telemetry] says where the built-in host reports") {
		t.Errorf("Parse() = %v, want [telemetry] refused for a brought agent", err)
	}
}
