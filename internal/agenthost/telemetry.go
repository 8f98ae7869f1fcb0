package agenthost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	grpccodes "google.golang.org/grpc/codes"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// maxSpanBatchDelay caps how long a finished span waits to be sent, so a
// trace shows up while its caller still looks for it even when metrics
// are exported rarely.
const maxSpanBatchDelay = 5 * time.Second

// Span and metric attributes. They name only what the host itself
// decides (the method the SDK dispatched to, the binding, an A2A error
// reason), never what a caller wrote: no bodies, tokens or paths, which
// may carry user data and would make the metrics' label sets unbounded.
const (
	attrMethod    = attribute.Key("a2a.method")
	attrBinding   = attribute.Key("a2a.binding")
	attrOutcome   = attribute.Key("a2a.outcome")
	attrErrorCode = attribute.Key("a2a.error_code")
	attrStatus    = attribute.Key("http.response.status_code")
	attrState     = attribute.Key("a2a.task.state")
)

// Outcomes of a call.
const (
	outcomeOK    = "ok"
	outcomeError = "error"
)

// telemetry reports the host's calls as OpenTelemetry spans and metrics.
// A host whose config has no [telemetry] has none (nil): no exporter, no
// goroutine, no listener, and its calls go untouched.
type telemetry struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	metrics    *callMetrics
	// stops flush and stop what the telemetry started, in order.
	stops  []func(context.Context) error
	logger *slog.Logger
	// budget is the host's, once the host has made it; the gauge reads
	// it from the exporter's goroutine.
	budget atomic.Pointer[budget]
	// exports counts the exports and scrapes done, for trimWhenIdle.
	exports atomic.Uint64
}

// startTelemetry starts what [telemetry] asks for: OTLP/HTTP exporters of
// spans and metrics, a Prometheus endpoint, or both.
func startTelemetry(ctx context.Context, cfg *agentconfig.Config, version string, tasks taskStorage, logger *slog.Logger) (*telemetry, error) {
	tc := cfg.Telemetry
	if !tc.Enabled() {
		return nil, nil
	}
	var problem *agentconfig.Error
	tc.Check(func(key, msg string) {
		if problem == nil {
			problem = cfg.Invalid(key, msg)
		}
	})
	if problem != nil {
		return nil, &configError{problem}
	}
	name := tc.ServiceName
	if name == "" {
		name = cfg.ID()
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", name),
		attribute.String("service.version", version),
	)
	t := &telemetry{
		tracer:     noop.NewTracerProvider().Tracer(""),
		propagator: propagation.TraceContext{},
		logger:     logger,
	}
	var readers []sdkmetric.Option
	if tc.OTLPEndpoint != "" {
		// The exporters report failures (a collector that is down) to the
		// global handler, which would print to stderr in its own format.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("telemetry export failed", "error", err.Error()) }))
		interval := tc.ExportIntervalDuration()
		exporter, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(signalURL(tc.OTLPEndpoint, "traces")), otlptracehttp.WithHeaders(tc.OTLPHeaders))
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(
			sdktrace.WithResource(res),
			sdktrace.WithBatcher(countedSpans{exporter, &t.exports}, sdktrace.WithBatchTimeout(min(interval, maxSpanBatchDelay))),
		)
		t.tracer = tp.Tracer(instrumentationName)
		t.stops = append(t.stops, tp.Shutdown)
		reader, err := otlpMetricReader(ctx, tc, interval, &t.exports)
		if err != nil {
			_ = tp.Shutdown(ctx)
			return nil, err
		}
		readers = append(readers, sdkmetric.WithReader(reader))
	}
	var scrape *sdkmetric.ManualReader
	if tc.MetricsListen != "" {
		scrape = sdkmetric.NewManualReader()
		readers = append(readers, sdkmetric.WithReader(scrape))
	}
	mp := sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
	// Stopping goes from the outside in: the Prometheus listener (added
	// below), so no scrape races the end, then the last metric export,
	// then the span flush.
	t.stops = append([]func(context.Context) error{mp.Shutdown}, t.stops...)
	m, err := newCallMetrics(mp.Meter(instrumentationName), tasks, t.budgetInUse)
	if err != nil {
		_ = t.shutdown(ctx)
		return nil, err
	}
	t.metrics = m
	if scrape != nil {
		stop, err := servePrometheus(ctx, tc.MetricsListen, scrape, &t.exports, logger)
		if err != nil {
			_ = t.shutdown(ctx)
			return nil, err
		}
		t.stops = append([]func(context.Context) error{stop}, t.stops...)
	}
	return t, nil
}

// exportCount is how many exports and scrapes the telemetry has done; 0
// without telemetry.
func (t *telemetry) exportCount() uint64 {
	if t == nil {
		return 0
	}
	return t.exports.Load()
}

// countedSpans counts the span exports done.
type countedSpans struct {
	sdktrace.SpanExporter
	n *atomic.Uint64
}

func (e countedSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	defer e.n.Add(1)
	return e.SpanExporter.ExportSpans(ctx, spans)
}

// budgetInUse is what the calls running now hold of the host's budget.
func (t *telemetry) budgetInUse() int64 {
	if b := t.budget.Load(); b != nil {
		return b.inUse.Load()
	}
	return 0
}

// instrument has tel report the calls of every binding h serves. It runs
// before h serves its first call.
func (h *Host) instrument(tel *telemetry) {
	if tel == nil {
		return
	}
	h.telemetry = tel
	tel.budget.Store(h.budget)
	h.routes.rpc = tel.instrument(agentconfig.BindingJSONRPC, h.routes.rpc)
	h.routes.rest = tel.instrument(agentconfig.BindingHTTPJSON, h.routes.rest)
	h.routes.grpc = tel.instrument(agentconfig.BindingGRPC, h.routes.grpc)
}

// instrumentationName names the host as the instrumentation scope of its
// spans and metrics.
const instrumentationName = "github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"

// signalURL is where a signal goes below the collector's base URL, as
// OTEL_EXPORTER_OTLP_ENDPOINT is read: the base path, then /v1/<signal>.
func signalURL(base, signal string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + signal
	u.RawPath = ""
	return u.String()
}

// shutdown flushes what is still buffered and stops every exporter and
// listener, within ctx.
func (t *telemetry) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, stop := range t.stops {
		if err := stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry: flush on shutdown: %w", err)
	}
	return nil
}

// instrument reports each call next serves over binding: a span, child
// of the caller's W3C trace context when the call carries one, and the
// call's metrics. Each binding's endpoint is wrapped once, where the host
// routes calls to it, so no binding is left out and none is counted twice.
func (t *telemetry) instrument(binding string, next http.Handler) http.Handler {
	if t == nil || next == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec, ok := r.Context().Value(requestRecordKey{}).(*requestRecord)
		ctx := r.Context()
		if !ok {
			rec = &requestRecord{}
			ctx = context.WithValue(ctx, requestRecordKey{}, rec)
		}
		ctx = t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, "A2A "+binding, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start))
		sw := &statusWriter{ResponseWriter: w, rec: rec}
		next.ServeHTTP(sw, r.WithContext(ctx))

		method := rec.method()
		code := rec.errorCode()
		if code == "" {
			code = transportErrorCode(binding, sw)
		}
		outcome := outcomeOK
		if code != "" {
			outcome = outcomeError
		}
		attrs := []attribute.KeyValue{attrMethod.String(method), attrBinding.String(binding)}
		t.metrics.record(ctx, attrs, outcome, code, time.Since(start))

		span.SetName(method)
		span.SetAttributes(append(attrs, attrOutcome.String(outcome), attrStatus.Int(sw.status()))...)
		if code != "" {
			span.SetAttributes(attrErrorCode.String(code))
			// The code, never the message: a message may quote what the
			// caller sent.
			span.SetStatus(codes.Error, code)
		}
		span.End()
	})
}

// transportErrorCode names the error of a call the host answered without
// an A2A error reason it noted (an answer the SDK wrote before any of its
// interceptors ran): the gRPC status, or the HTTP status of an answer
// that is an error; "" for a success.
func transportErrorCode(binding string, sw *statusWriter) string {
	if binding == agentconfig.BindingGRPC {
		if n, err := strconv.Atoi(sw.Header().Get("Grpc-Status")); err == nil && n != 0 {
			return grpcStatusName(grpccodes.Code(n))
		}
		return ""
	}
	if s := sw.status(); s >= http.StatusBadRequest {
		return "HTTP_" + strconv.Itoa(s)
	}
	return ""
}

// noteError records the A2A error reason a call was answered with, the
// first one only: a stream that fails after it failed once keeps the
// reason that ended it.
func (rec *requestRecord) noteError(reason string) {
	rec.errReason.CompareAndSwap(nil, &reason)
}

func (rec *requestRecord) errorCode() string {
	if p := rec.errReason.Load(); p != nil {
		return *p
	}
	return ""
}

// method is the A2A method the SDK dispatched the call to; "batch" for
// a JSON-RPC batch of calls; "unknown" for a call refused before
// dispatch, whose method the host does not read from the caller's body.
func (rec *requestRecord) method() string {
	if rec.batch.Load() {
		return "batch"
	}
	if m := rec.rpcMethod.Load(); m != nil {
		return *m
	}
	return "unknown"
}

// noteRefusal records the A2A error a binding answers with itself, before
// or instead of the SDK, on the record of the call w answers.
func noteRefusal(w http.ResponseWriter, kind error) {
	for w != nil {
		if sw, ok := w.(*statusWriter); ok {
			if sw.rec != nil {
				sw.rec.noteError(a2a.ErrorReason(kind))
			}
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}
