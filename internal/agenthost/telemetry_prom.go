package agenthost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/protobuf/proto"
)

// metricsPath is where the Prometheus endpoint answers.
const metricsPath = "/metrics"

// servePrometheus listens on addr and answers scrapes of /metrics with
// what reader collects then, in the Prometheus text format. The metrics
// are the same instruments the OTLP exporter reads, so the two never
// disagree. The Prometheus client library is not linked: it would grow
// the host's executable for a registry the OpenTelemetry SDK already is.
func servePrometheus(ctx context.Context, addr string, reader *sdkmetric.ManualReader, scrapes *atomic.Uint64, logger *slog.Logger) (stop func(context.Context) error, err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("telemetry: listen for Prometheus scrapes on [telemetry] metrics_listen %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+metricsPath, func(w http.ResponseWriter, r *http.Request) {
		defer scrapes.Add(1)
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(r.Context(), &rm); err != nil {
			// A gauge whose source failed (a task store that did not
			// answer) leaves the others still worth serving.
			logger.Warn("telemetry: collect metrics", "error", err.Error())
		}
		w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
		for _, mf := range families(rm) {
			if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
				return
			}
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("telemetry: Prometheus endpoint stopped", "error", err.Error())
		}
	}()
	logger.Info("telemetry: Prometheus metrics", "listen", ln.Addr().String(), "path", metricsPath)
	return func(ctx context.Context) error {
		err := srv.Shutdown(ctx)
		<-done
		return err
	}, nil
}

// families turns collected metrics into Prometheus metric families: the
// name with dots as underscores and the unit as a suffix, counters ending
// in _total, attributes as labels.
func families(rm metricdata.ResourceMetrics) []*dto.MetricFamily {
	var out []*dto.MetricFamily
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			mf := &dto.MetricFamily{Name: proto.String(promName(m.Name, m.Unit)), Help: proto.String(m.Description)}
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if data.IsMonotonic {
					mf.Name = proto.String(*mf.Name + "_total")
					mf.Type = dto.MetricType_COUNTER.Enum()
				} else {
					mf.Type = dto.MetricType_GAUGE.Enum()
				}
				for _, p := range data.DataPoints {
					v := float64(p.Value)
					metric := &dto.Metric{Label: labels(p.Attributes)}
					if data.IsMonotonic {
						metric.Counter = &dto.Counter{Value: &v}
					} else {
						metric.Gauge = &dto.Gauge{Value: &v}
					}
					mf.Metric = append(mf.Metric, metric)
				}
			case metricdata.Gauge[int64]:
				mf.Type = dto.MetricType_GAUGE.Enum()
				for _, p := range data.DataPoints {
					v := float64(p.Value)
					mf.Metric = append(mf.Metric, &dto.Metric{Label: labels(p.Attributes), Gauge: &dto.Gauge{Value: &v}})
				}
			case metricdata.Histogram[float64]:
				mf.Type = dto.MetricType_HISTOGRAM.Enum()
				for _, p := range data.DataPoints {
					mf.Metric = append(mf.Metric, &dto.Metric{Label: labels(p.Attributes), Histogram: histogram(p)})
				}
			default:
				continue
			}
			if len(mf.Metric) > 0 {
				out = append(out, mf)
			}
		}
	}
	return out
}

// histogram is a data point as Prometheus writes it: cumulative buckets,
// the last, +Inf, implied by the count.
func histogram(p metricdata.HistogramDataPoint[float64]) *dto.Histogram {
	h := &dto.Histogram{SampleCount: proto.Uint64(p.Count), SampleSum: proto.Float64(p.Sum)}
	var cumulative uint64
	for i, bound := range p.Bounds {
		cumulative += p.BucketCounts[i]
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(bound), CumulativeCount: proto.Uint64(cumulative)})
	}
	return h
}

func labels(set attribute.Set) []*dto.LabelPair {
	pairs := make([]*dto.LabelPair, 0, set.Len())
	for _, kv := range set.ToSlice() {
		pairs = append(pairs, &dto.LabelPair{Name: proto.String(promSafe(string(kv.Key))), Value: proto.String(kv.Value.Emit())})
	}
	return pairs
}

// promName is an OpenTelemetry name and unit as a Prometheus name.
func promName(name, unit string) string {
	n := promSafe(name)
	switch unit {
	case "s":
		n += "_seconds"
	case "By":
		n += "_bytes"
	}
	return n
}

// promSafe replaces what a Prometheus name may not hold with '_'.
func promSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == ':' {
			return r
		}
		return '_'
	}, s)
}
