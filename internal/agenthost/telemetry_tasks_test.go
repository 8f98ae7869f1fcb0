package agenthost

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// TestTaskGaugeCountsByState checks what the task gauge reads, from the
// memory store and from the shared one, where only the agent's own tasks
// count.
func TestTaskGaugeCountsByState(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) (mine, other taskStorage)
	}{
		{"memory", func(*testing.T) (taskStorage, taskStorage) {
			return newTaskStore(10, time.Hour), newTaskStore(10, time.Hour)
		}},
		{"postgres", func(t *testing.T) (taskStorage, taskStorage) {
			dsn := pgtest.Shared(t).NewDatabase(t)
			return openPG(t, dsn, "counted-agent", 10, time.Hour), openPG(t, dsn, "other-agent", 10, time.Hour)
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			mine, other := st.open(t)
			ctx := asCaller(sharedScope)
			for i, state := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateCompleted, a2a.TaskStateFailed} {
				if _, err := mine.Create(ctx, testTask(fmt.Sprintf("t%d", i), "c", state, time.Now())); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := other.Create(ctx, testTask("elsewhere", "c", a2a.TaskStateCompleted, time.Now())); err != nil {
				t.Fatal(err)
			}
			counts, err := mine.(taskCounter).countByState(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := map[a2a.TaskState]int64{a2a.TaskStateWorking: 1, a2a.TaskStateCompleted: 2, a2a.TaskStateFailed: 1}
			if len(counts) != len(want) {
				t.Errorf("counts %v, want %v", counts, want)
			}
			for state, n := range want {
				if counts[state] != n {
					t.Errorf("%s: %d tasks, want %d (all: %v)", state, counts[state], n, counts)
				}
			}
		})
	}
}

// TestPrometheusAloneSendsNothing checks that a host with only
// metrics_listen serves /metrics and exports nothing over OTLP, even with
// the SDK's variables naming a collector.
func TestPrometheusAloneSendsNothing(t *testing.T) {
	c := newCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.endpoint())
	var log syncBuffer
	cfg := parseConfig(t, echoConfig+"\n[telemetry]\nmetrics_listen = \"127.0.0.1:0\"\n")
	h, err := Start(t.Context(), cfg, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res := postRPC(t, h.Endpoint(), "SendMessage", sendParams("hello"), nil); res.status != http.StatusOK {
		t.Fatalf("SendMessage: %s", res)
	}
	addr := logField(firstLineWith(log.String(), "Prometheus metrics"), "listen")
	families := scrape(t, "http://"+addr+metricsPath)
	calls := families["a2a_server_calls_total"].GetMetric()
	if len(calls) != 1 || calls[0].GetCounter().GetValue() != 1 {
		t.Errorf("a2a_server_calls_total: %v, want one call", calls)
	}
	shutdownUnheard(t, h, c, "a host with only metrics_listen")
	// Stopped with the host: nothing listens there any more.
	var d net.Dialer
	conn, err := d.DialContext(ctxFor(t), "tcp", addr)
	if err == nil {
		_ = conn.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("dial the metrics listener after shutdown: %v, want the connection refused", err)
	}
}
