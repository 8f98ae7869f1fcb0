package agenthost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	collmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// collector is an OTLP/HTTP receiver: it keeps every span and every
// metrics export the host sends it.
type collector struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource []*commonpb.KeyValue
	metrics  []*collmetrics.ExportMetricsServiceRequest
	requests int
	headers  []http.Header
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want a protobuf body", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests++
		c.headers = append(c.headers, r.Header.Clone())
		var answer proto.Message
		switch r.URL.Path {
		case "/otlp/v1/traces":
			var req colltrace.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, rs := range req.ResourceSpans {
				c.resource = rs.GetResource().GetAttributes()
				for _, ss := range rs.ScopeSpans {
					c.spans = append(c.spans, ss.Spans...)
				}
			}
			answer = &colltrace.ExportTraceServiceResponse{}
		case "/otlp/v1/metrics":
			var req collmetrics.ExportMetricsServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			c.metrics = append(c.metrics, &req)
			answer = &collmetrics.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, r)
			return
		}
		raw, _ := proto.Marshal(answer)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(raw)
	}))
	t.Cleanup(c.Close)
	return c
}

// endpoint is the base URL the host is configured with; a path of its
// own shows the host appends /v1/<signal> below it.
func (c *collector) endpoint() string { return c.URL + "/otlp" }

// spanOf returns the span of the trace traceID, if it has arrived.
func (c *collector) spanOf(traceID string) *tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.spans {
		if fmt.Sprintf("%x", s.TraceId) == traceID {
			return s
		}
	}
	return nil
}

// lastMetric returns metric name from the latest export holding it: the
// SDK exports cumulative totals, so the latest is the whole count.
func (c *collector) lastMetric(name string) *metricpb.Metric {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.metrics) - 1; i >= 0; i-- {
		for _, rm := range c.metrics[i].ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name == name {
						return m
					}
				}
			}
		}
	}
	return nil
}

// waitUntil polls cond until it holds or waitLimit passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out[kv.Key] = v.GetStringValue()
		default:
			out[kv.Key] = fmt.Sprint(v.GetIntValue())
		}
	}
	return out
}

// traceparent is a W3C trace context of a caller: version 00, its trace
// and span ids, sampled.
func traceparent(traceID, spanID string) string { return "00-" + traceID + "-" + spanID + "-01" }

const (
	telemetryToken = "tel-secret-token-7f3a"
	telemetryText  = "private words of the caller"
)

func telemetryConfig(endpoint, extra string) string {
	return echoConfig + fmt.Sprintf(`
[auth]
bearer_token = %q

[telemetry]
otlp_endpoint = %q
service_name = "echo-under-test"
export_interval = "100ms"
%s
[telemetry.otlp_headers]
X-Collector-Key = "collector-key"
`, telemetryToken, endpoint, extra)
}

// TestTelemetryReportsEveryBinding calls the host over each binding with
// a caller's W3C trace context and checks the collector gets a span of
// each call in the caller's trace, with the call's attributes and never
// its token or words, and the calls' metrics; then scrapes /metrics.
func TestTelemetryReportsEveryBinding(t *testing.T) {
	c := newCollector(t)
	var log syncBuffer
	cfg := parseConfig(t, telemetryConfig(c.endpoint(), `metrics_listen = "127.0.0.1:0"`))
	h := startInProcess(t, cfg, Options{Log: &log, Version: "9.9.9"})
	rest := strings.TrimSuffix(h.Endpoint(), "/")
	auth := "Bearer " + telemetryToken

	type call struct {
		name, binding, method, errorCode string
		traceID, spanID                  string
		do                               func(t *testing.T, tp string)
	}
	calls := []call{
		{name: "JSON-RPC send", binding: agentconfig.BindingJSONRPC, method: "SendMessage",
			traceID: "0af7651916cd43dd8448eb211c80319c", spanID: "b7ad6b7169203331",
			do: func(t *testing.T, tp string) {
				res := postRPC(t, h.Endpoint(), "SendMessage", sendParams(telemetryText), http.Header{"Traceparent": {tp}, "Authorization": {auth}})
				if res.status != http.StatusOK || bytes.Contains(res.body, []byte(`"error"`)) {
					t.Fatalf("SendMessage: %s", res)
				}
			}},
		{name: "HTTP+JSON send", binding: agentconfig.BindingHTTPJSON, method: "SendMessage",
			traceID: "1af7651916cd43dd8448eb211c80319c", spanID: "c7ad6b7169203331",
			do: func(t *testing.T, tp string) {
				body := fmt.Appendf(nil, `{"message":{"messageId":"r1","role":"ROLE_USER","parts":[{"text":%q}]}}`, telemetryText)
				res := do(t, http.MethodPost, rest+"/message:send", http.Header{
					"Content-Type": {"application/json"}, a2a.SvcParamVersion: {"1.0"}, "Traceparent": {tp}, "Authorization": {auth},
				}, body)
				if res.status != http.StatusOK {
					t.Fatalf("message:send: %s", res)
				}
			}},
		{name: "gRPC send", binding: agentconfig.BindingGRPC, method: "SendMessage",
			traceID: "2af7651916cd43dd8448eb211c80319c", spanID: "d7ad6b7169203331",
			do: func(t *testing.T, tp string) {
				if err := grpcCall(t, h.Endpoint(), metadata.Pairs("traceparent", tp, "authorization", auth, "a2a-version", "1.0"), telemetryText); err != nil {
					t.Fatalf("gRPC SendMessage: %v", err)
				}
			}},
		{name: "JSON-RPC unknown task", binding: agentconfig.BindingJSONRPC, method: "GetTask", errorCode: "TASK_NOT_FOUND",
			traceID: "3af7651916cd43dd8448eb211c80319c", spanID: "e7ad6b7169203331",
			do: func(t *testing.T, tp string) {
				res := postRPC(t, h.Endpoint(), "GetTask", map[string]any{"id": "no-such-task"}, http.Header{"Traceparent": {tp}, "Authorization": {auth}})
				if !bytes.Contains(res.body, []byte(`"error"`)) {
					t.Fatalf("GetTask of no task: %s", res)
				}
			}},
		{name: "HTTP+JSON without the token", binding: agentconfig.BindingHTTPJSON, method: "unknown", errorCode: "UNAUTHENTICATED",
			traceID: "4af7651916cd43dd8448eb211c80319c", spanID: "f7ad6b7169203331",
			do: func(t *testing.T, tp string) {
				res := do(t, http.MethodPost, rest+"/message:send", http.Header{
					"Content-Type": {"application/json"}, a2a.SvcParamVersion: {"1.0"}, "Traceparent": {tp},
				}, []byte(`{}`))
				if res.status != http.StatusUnauthorized {
					t.Fatalf("message:send without a token: %s", res)
				}
			}},
		{name: "JSON-RPC batch", binding: agentconfig.BindingJSONRPC, method: "batch", errorCode: "TASK_NOT_FOUND",
			traceID: "8af7651916cd43dd8448eb211c80319c", spanID: "87ad6b7169203331",
			do: func(t *testing.T, tp string) {
				body := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}},{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"none"}}]`)
				res := do(t, http.MethodPost, h.Endpoint(), http.Header{
					"Content-Type": {"application/json"}, a2a.SvcParamVersion: {"1.0"}, "Traceparent": {tp}, "Authorization": {auth},
				}, body)
				if res.status != http.StatusOK || !bytes.Contains(res.body, []byte(`"error"`)) {
					t.Fatalf("batch: %s", res)
				}
			}},
		{name: "gRPC without the token", binding: agentconfig.BindingGRPC, method: "unknown", errorCode: "UNAUTHENTICATED",
			traceID: "7af7651916cd43dd8448eb211c80319c", spanID: "97ad6b7169203331",
			do: func(t *testing.T, tp string) {
				wantGRPCStatus(t, grpcCall(t, h.Endpoint(), metadata.Pairs("traceparent", tp, "a2a-version", "1.0"), telemetryText), codes.Unauthenticated, "")
			}},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			tc.do(t, traceparent(tc.traceID, tc.spanID))
			var span *tracepb.Span
			waitUntil(t, "the span of trace "+tc.traceID, func() bool { span = c.spanOf(tc.traceID); return span != nil })
			if got := fmt.Sprintf("%x", span.ParentSpanId); got != tc.spanID {
				t.Errorf("span's parent is %s, want the caller's span %s", got, tc.spanID)
			}
			if span.Kind != tracepb.Span_SPAN_KIND_SERVER || span.Name != tc.method {
				t.Errorf("span %q of kind %v, want %q of kind server", span.Name, span.Kind, tc.method)
			}
			got := attrs(span.Attributes)
			want := map[string]string{"a2a.method": tc.method, "a2a.binding": tc.binding, "a2a.outcome": "ok"}
			if tc.errorCode != "" {
				want["a2a.outcome"], want["a2a.error_code"] = "error", tc.errorCode
				if span.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
					t.Errorf("span status %v, want an error", span.Status)
				}
			} else if _, ok := got["a2a.error_code"]; ok || span.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("span of a successful call has an error: %v, %v", got, span.Status)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("span attribute %s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
			for k, v := range got {
				if strings.Contains(v, telemetryToken) || strings.Contains(v, telemetryText) {
					t.Errorf("span attribute %s = %q carries what the caller sent", k, v)
				}
			}
		})
	}

	c.mu.Lock()
	res := attrs(c.resource)
	headers := c.headers
	c.mu.Unlock()
	if res["service.name"] != "echo-under-test" || res["service.version"] != "9.9.9" {
		t.Errorf("resource %v, want service.name echo-under-test and service.version 9.9.9", res)
	}
	for _, hd := range headers {
		if hd.Get("X-Collector-Key") != "collector-key" {
			t.Errorf("an export came without [telemetry.otlp_headers]: %v", hd)
		}
	}

	type point struct {
		labels map[string]string
		value  float64
	}
	// What every counter holds once all the calls above are counted.
	wantCalls := []point{
		{map[string]string{"a2a.method": "SendMessage", "a2a.binding": "JSONRPC"}, 1},
		{map[string]string{"a2a.method": "SendMessage", "a2a.binding": "HTTP+JSON"}, 1},
		{map[string]string{"a2a.method": "SendMessage", "a2a.binding": "GRPC"}, 1},
		{map[string]string{"a2a.method": "GetTask", "a2a.binding": "JSONRPC"}, 1},
		{map[string]string{"a2a.method": "unknown", "a2a.binding": "HTTP+JSON"}, 1},
		{map[string]string{"a2a.method": "unknown", "a2a.binding": "GRPC"}, 1},
		{map[string]string{"a2a.method": "batch", "a2a.binding": "JSONRPC"}, 1},
	}
	wantErrors := []point{
		{map[string]string{"a2a.method": "GetTask", "a2a.binding": "JSONRPC", "a2a.error_code": "TASK_NOT_FOUND"}, 1},
		{map[string]string{"a2a.method": "unknown", "a2a.binding": "HTTP+JSON", "a2a.error_code": "UNAUTHENTICATED"}, 1},
		{map[string]string{"a2a.method": "unknown", "a2a.binding": "GRPC", "a2a.error_code": "UNAUTHENTICATED"}, 1},
		{map[string]string{"a2a.method": "batch", "a2a.binding": "JSONRPC", "a2a.error_code": "TASK_NOT_FOUND"}, 1},
	}
	sumOf := func(m *metricpb.Metric, labels map[string]string) (float64, bool) {
		for _, p := range m.GetSum().GetDataPoints() {
			if matches(attrs(p.Attributes), labels) {
				return float64(p.GetAsInt()), true
			}
		}
		return 0, false
	}
	countsReached := func(name string, want []point) func() bool {
		return func() bool {
			m := c.lastMetric(name)
			for _, p := range want {
				if v, _ := sumOf(m, p.labels); v != p.value {
					return false
				}
			}
			return m != nil && len(m.GetSum().GetDataPoints()) == len(want)
		}
	}
	waitUntil(t, "the call counts over OTLP", countsReached(metricCalls, wantCalls))
	waitUntil(t, "the error counts over OTLP", countsReached(metricErrors, wantErrors))
	waitUntil(t, "the latency histogram over OTLP", func() bool {
		var n uint64
		for _, p := range c.lastMetric(metricDuration).GetHistogram().GetDataPoints() {
			n += p.Count
		}
		return n == uint64(len(calls))
	})
	// The three sends each left a completed task.
	waitUntil(t, "the task gauge over OTLP", func() bool {
		for _, p := range c.lastMetric(metricTasks).GetGauge().GetDataPoints() {
			if attrs(p.Attributes)["a2a.task.state"] == string(a2a.TaskStateCompleted) {
				return p.GetAsInt() == 3
			}
		}
		return false
	})
	if m := c.lastMetric(metricBudget); m == nil || len(m.GetGauge().GetDataPoints()) != 1 || m.GetGauge().DataPoints[0].GetAsInt() != 0 {
		t.Errorf("budget gauge %v, want one point of 0 bytes with no call running", m)
	}

	addr := logField(firstLineWith(log.String(), "Prometheus metrics"), "listen")
	if addr == "" {
		t.Fatalf("the log names no Prometheus listener:\n%s", log.String())
	}
	families := scrape(t, "http://"+addr+metricsPath)
	promPoint := func(mf *dto.MetricFamily, labels map[string]string) (*dto.Metric, bool) {
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if matches(got, labels) {
				return m, true
			}
		}
		return nil, false
	}
	promLabels := func(otel map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range otel {
			out[strings.ReplaceAll(k, ".", "_")] = v
		}
		return out
	}
	for name, want := range map[string][]point{"a2a_server_calls_total": wantCalls, "a2a_server_errors_total": wantErrors} {
		mf := families[name]
		if mf.GetType() != dto.MetricType_COUNTER || len(mf.GetMetric()) != len(want) {
			t.Errorf("%s: %v, want a counter of %d series", name, mf, len(want))
			continue
		}
		for _, p := range want {
			if m, ok := promPoint(mf, promLabels(p.labels)); !ok || m.GetCounter().GetValue() != p.value {
				t.Errorf("%s%v = %v, want %v", name, p.labels, m, p.value)
			}
		}
	}
	hist := families["a2a_server_call_duration_seconds"]
	var count uint64
	for _, m := range hist.GetMetric() {
		count += m.GetHistogram().GetSampleCount()
		// The parser reads the +Inf bucket as one more.
		if b := m.GetHistogram().GetBucket(); len(b) != len(durationBuckets)+1 {
			t.Errorf("histogram has %d buckets, want %d and +Inf", len(b), len(durationBuckets))
		}
	}
	if hist.GetType() != dto.MetricType_HISTOGRAM || count != uint64(len(calls)) {
		t.Errorf("a2a_server_call_duration_seconds: %v, want a histogram of %d calls", hist, len(calls))
	}
	if m, ok := promPoint(families["a2a_server_tasks"], map[string]string{"a2a_task_state": string(a2a.TaskStateCompleted)}); !ok || m.GetGauge().GetValue() != 3 {
		t.Errorf("a2a_server_tasks{completed} = %v, want 3", m)
	}
	if mf := families["a2a_server_budget_in_use_bytes"]; mf.GetType() != dto.MetricType_GAUGE || len(mf.GetMetric()) != 1 {
		t.Errorf("a2a_server_budget_in_use_bytes: %v, want one gauge", mf)
	}
	if res := httpGet(t, "http://"+addr+"/other"); res.status != http.StatusNotFound {
		t.Errorf("GET /other on the metrics listener: %s, want 404", res)
	}
	// The card is the A2A schema's alone, whatever telemetry reports.
	if card := httpGet(t, h.CardURL()); bytes.Contains(card.body, []byte("telemetry")) || bytes.Contains(card.body, []byte("otlp")) {
		t.Errorf("the card mentions telemetry: %s", card.body)
	}
}

func matches(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// scrape reads /metrics as Prometheus would.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res := httpGet(t, url)
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %s", url, res)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(res.body))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", url, err, res.body)
	}
	return families
}

// TestTelemetryFlushesOnShutdown checks that what the host holds when it
// stops reaches the collector: with an export interval far longer than
// the test, only the flush at shutdown can send it.
func TestTelemetryFlushesOnShutdown(t *testing.T) {
	c := newCollector(t)
	cfg := parseConfig(t, echoConfig+fmt.Sprintf("\n[telemetry]\notlp_endpoint = %q\nexport_interval = \"1h\"\n", c.endpoint()))
	h, err := Start(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const traceID = "5af7651916cd43dd8448eb211c80319c"
	if res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), http.Header{"Traceparent": {traceparent(traceID, "a7ad6b7169203331")}}); res.status != http.StatusOK {
		t.Fatalf("SendMessage: %s", res)
	}
	if c.spanOf(traceID) != nil || c.lastMetric(metricCalls) != nil {
		t.Fatal("the collector has the call before the host stopped: the test would pass without the flush")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if c.spanOf(traceID) == nil {
		t.Error("the call's span did not reach the collector by the end of Shutdown")
	}
	if m := c.lastMetric(metricCalls); m == nil || len(m.GetSum().GetDataPoints()) != 1 || m.GetSum().DataPoints[0].GetAsInt() != 1 {
		t.Errorf("calls counter at shutdown: %v, want one call", m)
	}
}

// TestTelemetryIsOffByDefault checks that a host whose config has no
// [telemetry] sends nothing, even with the OpenTelemetry SDK's variables
// pointing at a collector, and starts no telemetry at all.
func TestTelemetryIsOffByDefault(t *testing.T) {
	c := newCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.endpoint())
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_METRICS_EXPORTER", "otlp,prometheus")
	cfg := parseConfig(t, echoConfig)
	h, err := Start(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.telemetry != nil {
		t.Error("a host without [telemetry] has telemetry")
	}
	if _, wrapped := h.routes.rpc.(*rpcEndpoint); !wrapped {
		t.Errorf("the JSON-RPC endpoint is %T, want the bare endpoint", h.routes.rpc)
	}
	if res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), http.Header{"Traceparent": {traceparent("6af7651916cd43dd8448eb211c80319c", "a7ad6b7169203331")}}); res.status != http.StatusOK {
		t.Fatalf("SendMessage: %s", res)
	}
	shutdownUnheard(t, h, c, "a host without [telemetry]")
}

// shutdownUnheard stops the host, flushing whatever it would send, and
// checks that the collector got no export from it.
func shutdownUnheard(t *testing.T, h *Host, c *collector, host string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests != 0 {
		t.Errorf("the collector got %d exports from %s", c.requests, host)
	}
}

// TestTelemetryConfigIsCheckedOnceExpanded refuses, before the host
// starts, a [telemetry] value a variable made invalid, and a Prometheus
// port already taken.
func TestTelemetryConfigIsCheckedOnceExpanded(t *testing.T) {
	taken := httptest.NewServer(http.NotFoundHandler())
	defer taken.Close()
	tests := []struct {
		name, table, env, want string
	}{
		{"endpoint from a variable", `otlp_endpoint = "${OTLP_URL}"`, "collector:4318", `telemetry.otlp_endpoint "collector:4318" is not an absolute http(s) URL`},
		{"interval from a variable", "otlp_endpoint = \"http://127.0.0.1:1\"\nexport_interval = \"${OTLP_URL}\"", "soon", `telemetry.export_interval "soon" is not a positive duration`},
		{"port in use", fmt.Sprintf("metrics_listen = %q", strings.TrimPrefix(taken.URL, "http://")), "", "metrics_listen"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTLP_URL", tc.env)
			cfg := parseConfig(t, echoConfig+"\n[telemetry]\n"+tc.table+"\n")
			h, err := Start(t.Context(), cfg, Options{})
			if err == nil {
				_ = h.Shutdown(context.Background())
				t.Fatal("the host started")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
			var ce *configError
			if wantConfigError := tc.env != ""; errors.As(err, &ce) != wantConfigError {
				t.Errorf("error %q is a config error: %v, want %v", err, !wantConfigError, wantConfigError)
			}
		})
	}
}
