package agenthost

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// The host's metrics, as OpenTelemetry names them; the Prometheus
// endpoint writes them with dots as underscores and the unit as a suffix
// (a2a_server_call_duration_seconds).
const (
	metricCalls    = "a2a.server.calls"
	metricErrors   = "a2a.server.errors"
	metricDuration = "a2a.server.call.duration"
	metricTasks    = "a2a.server.tasks"
	metricBudget   = "a2a.server.budget.in_use"
)

// durationBuckets bound the latency histogram, in seconds: from a call
// answered from memory to a long LLM turn. The SDK's default buckets are
// meant for milliseconds.
var durationBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// callMetrics are the instruments a call updates; the task and budget
// gauges are read when metrics are collected.
type callMetrics struct {
	calls    metric.Int64Counter
	errors   metric.Int64Counter
	duration metric.Float64Histogram
}

// taskCounter is a store that can count its tasks by state.
type taskCounter interface {
	countByState(ctx context.Context) (map[a2a.TaskState]int64, error)
}

func newCallMetrics(meter metric.Meter, tasks taskStorage, budgetInUse func() int64) (*callMetrics, error) {
	var m callMetrics
	var err error
	if m.calls, err = meter.Int64Counter(metricCalls, metric.WithUnit("{call}"),
		metric.WithDescription("A2A calls served, by method and binding")); err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", metricCalls, err)
	}
	if m.errors, err = meter.Int64Counter(metricErrors, metric.WithUnit("{call}"),
		metric.WithDescription("A2A calls answered with an error, by method, binding and error code")); err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", metricErrors, err)
	}
	if m.duration, err = meter.Float64Histogram(metricDuration, metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...),
		metric.WithDescription("How long A2A calls take, until the answer or stream ends")); err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", metricDuration, err)
	}
	if counter, ok := tasks.(taskCounter); ok {
		if _, err = meter.Int64ObservableGauge(metricTasks, metric.WithUnit("{task}"),
			metric.WithDescription("Tasks the host keeps, by state"),
			metric.WithInt64Callback(func(ctx context.Context, o metric.Int64Observer) error {
				counts, err := counter.countByState(ctx)
				if err != nil {
					return err
				}
				for state, n := range counts {
					o.Observe(n, metric.WithAttributes(attrState.String(string(state))))
				}
				return nil
			})); err != nil {
			return nil, fmt.Errorf("telemetry: %s: %w", metricTasks, err)
		}
	}
	if _, err = meter.Int64ObservableGauge(metricBudget, metric.WithUnit("By"),
		metric.WithDescription(fmt.Sprintf("Request budget the calls running now hold, of %d bytes", requestBudget)),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(budgetInUse())
			return nil
		})); err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", metricBudget, err)
	}
	return &m, nil
}

// record counts one call.
func (m *callMetrics) record(ctx context.Context, attrs []attribute.KeyValue, outcome, code string, took time.Duration) {
	m.calls.Add(ctx, 1, metric.WithAttributes(attrs...))
	if code != "" {
		m.errors.Add(ctx, 1, metric.WithAttributes(append(attrs[:len(attrs):len(attrs)], attrErrorCode.String(code))...))
	}
	m.duration.Record(ctx, took.Seconds(), metric.WithAttributes(append(attrs[:len(attrs):len(attrs)], attrOutcome.String(outcome))...))
}

// otlpMetricReader exports metrics to the collector every interval, and
// once more on shutdown.
func otlpMetricReader(ctx context.Context, tc agentconfig.Telemetry, interval time.Duration, exports *atomic.Uint64) (sdkmetric.Reader, error) {
	exporter, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(signalURL(tc.OTLPEndpoint, "metrics")), otlpmetrichttp.WithHeaders(tc.OTLPHeaders))
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP metric exporter: %w", err)
	}
	return sdkmetric.NewPeriodicReader(countedMetrics{exporter, exports}, sdkmetric.WithInterval(interval)), nil
}

// countedMetrics counts the metric exports done.
type countedMetrics struct {
	sdkmetric.Exporter
	n *atomic.Uint64
}

func (e countedMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	defer e.n.Add(1)
	return e.Exporter.Export(ctx, rm)
}

// countByState counts the tasks kept, by state; places kept for tasks not
// stored yet are not tasks.
func (s *taskStore) countByState(context.Context) (map[a2a.TaskState]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[a2a.TaskState]int64{}
	for el := s.order.Front(); el != nil; el = el.Next() {
		counts[el.Value.(*storedTask).state]++
	}
	return counts, nil
}

// countByState counts the agent's tasks in the shared store, those of
// every replica: each replica reports the same counts.
func (s *pgTaskStore) countByState(ctx context.Context) (map[a2a.TaskState]int64, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT state, count(*) FROM a2a_tasks WHERE agent_id = $1 AND task IS NOT NULL GROUP BY state`, s.agent)
	if err != nil {
		return nil, s.storeError("count tasks", err)
	}
	defer rows.Close()
	counts := map[a2a.TaskState]int64{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return nil, s.storeError("count tasks", err)
		}
		counts[a2a.TaskState(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, s.storeError("count tasks", err)
	}
	return counts, nil
}
