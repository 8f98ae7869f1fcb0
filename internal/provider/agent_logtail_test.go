package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// loggingRuntime is the in-memory adapter whose agents' logs hold lines.
type loggingRuntime struct {
	*memory.Runtime
	lines []string
}

func (r *loggingRuntime) Logs(context.Context, string, int) ([]string, error) { return r.lines, nil }

// TestLogTailBounded: whatever an agent wrote, the log tail of a failed
// start's diagnostic is printable and a few KiB at most.
func TestLogTailBounded(t *testing.T) {
	tests := map[string][]string{
		"NUL bytes":        {strings.Repeat("\x00", agentruntime.LogLineMax)},
		"long lines":       slicesOf(logTailLines, strings.Repeat("ä", agentruntime.LogLineMax/2)),
		"control bytes":    slicesOf(logTailLines, "\x1b[2J\a\x07 cleared"),
		"ordinary failure": {"listening", "error: port taken"},
	}
	for name, lines := range tests {
		t.Run(name, func(t *testing.T) {
			r := &agentResource{deps: &runtimeDeps{runtime: &loggingRuntime{Runtime: memory.New(), lines: lines}}}
			got := r.logTail(t.Context(), "x")
			if len(got) > logTailBytes+200 {
				t.Errorf("log tail is %d bytes, want at most about %d", len(got), logTailBytes)
			}
			for _, c := range got {
				if !unicode.IsPrint(c) && c != '\n' && c != '\t' && c != '\uFFFD' {
					t.Fatalf("log tail holds unprintable %q", c)
				}
			}
			if last := lines[len(lines)-1]; name == "ordinary failure" && !strings.Contains(got, last) {
				t.Errorf("log tail %q lost the last line %q", got, last)
			}
		})
	}
}

func slicesOf(n int, s string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// eventfulRuntime is the in-memory adapter recording events of its agents.
type eventfulRuntime struct {
	*loggingRuntime
	events []string
	err    error
}

func (r *eventfulRuntime) Events(context.Context, string, int) ([]string, error) {
	return r.events, r.err
}

// TestLogTailEvents: a failed start's diagnostic carries the events of a
// runtime that records them, bounded and each keeping its start, which
// names the event; a runtime without events adds nothing.
func TestLogTailEvents(t *testing.T) {
	const pulled = "Warning ErrImageNeverPull pod/a2a-x-1: image is not present"
	long := "Warning FailedScheduling pod/a2a-x-2: " + strings.Repeat("0/1 nodes are available. ", 100)
	logs := &loggingRuntime{Runtime: memory.New(), lines: []string{"listening"}}
	tests := []struct {
		name    string
		rt      agentruntime.Runtime
		want    []string
		wantNot []string
	}{
		{"no events recorded", logs, []string{"listening"}, []string{"events"}},
		{"events", &eventfulRuntime{loggingRuntime: logs, events: []string{pulled, long}},
			[]string{"listening", "Last 2 events of the agent:\n" + pulled + "\nWarning FailedScheduling pod/a2a-x-2: 0/1"}, nil},
		{"many events", &eventfulRuntime{loggingRuntime: logs, events: slicesOf(1000, long)},
			[]string{"events of the agent:\nWarning FailedScheduling"}, nil},
		{"events unreadable", &eventfulRuntime{loggingRuntime: logs, err: errors.New("events are forbidden")},
			[]string{"listening", "The agent's events cannot be read: events are forbidden"}, nil},
		{"no events yet", &eventfulRuntime{loggingRuntime: logs}, []string{"listening"}, []string{"events"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &agentResource{deps: &runtimeDeps{runtime: tt.rt}}
			got := r.logTail(t.Context(), "x")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("log tail %q does not hold %q", got, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("log tail %q holds %q", got, w)
				}
			}
			if len(got) > 2*logTailBytes+200 {
				t.Errorf("log tail is %d bytes, want at most about %d", len(got), 2*logTailBytes)
			}
		})
	}
}

// TestUpdateFailed: an update the runtime could not carry out (new pods
// that never become ready) tells why with the agent's log tail and events;
// a config the runtime refuses stays an error at the config attribute.
func TestUpdateFailed(t *testing.T) {
	rt := &eventfulRuntime{loggingRuntime: &loggingRuntime{Runtime: memory.New(), lines: []string{"listening"}},
		events: []string{"Warning FailedScheduling pod/a2a-x-2: 0/1 nodes are available"}}
	r := &agentResource{deps: &runtimeDeps{runtime: rt}}
	scaled := agentruntime.Errorf(agentruntime.KindBackend, "provision", "x", context.DeadlineExceeded, "deployment agents/a2a-x has 1 of its 2 pods available after scaling")
	diags := r.updateFailed(t.Context(), "x", scaled)
	if len(diags) != 1 || diags[0].Summary() != "Cannot update agent x" {
		t.Fatalf("diagnostics %v, want one error \"Cannot update agent x\"", diags)
	}
	for _, want := range []string{"1 of its 2 pods available", "listening", "Warning FailedScheduling pod/a2a-x-2"} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("detail %q does not hold %q", diags[0].Detail(), want)
		}
	}
	// The new pods of a failed rollout are gone: their lines are in the
	// error, while the runtime's logs are those of the pods that serve.
	crashed := append(slicesOf(2*logTailLines, "starting"), "error: bearer_token is empty")
	rolled := &agentruntime.RolloutError{
		Err:    agentruntime.Errorf(agentruntime.KindSpawnFailure, "roll", "x", errors.New("pod a2a-x-3: the agent exited with status 1"), "the new pods cannot run"),
		Logs:   crashed,
		Events: []string{"Warning BackOff pod/a2a-x-3: Back-off restarting failed container"},
	}
	diags = r.updateFailed(t.Context(), "x", rolled)
	if len(diags) != 1 || diags[0].Summary() != "Agent x was not updated: its new instances did not become healthy" {
		t.Fatalf("a failed rollout gave %v, want one error saying the agent was not updated", diags)
	}
	detail := diags[0].Detail()
	for _, want := range []string{"the new pods cannot run: pod a2a-x-3: the agent exited with status 1", "The previous instances serve on",
		fmt.Sprintf("Last %d lines of the agent's log:", logTailLines), "error: bearer_token is empty",
		"Last 1 events of the agent:\nWarning BackOff pod/a2a-x-3"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q does not hold %q", detail, want)
		}
	}
	if strings.Contains(detail, "listening") {
		t.Errorf("detail %q holds the log of the pods that serve, not of the new ones", detail)
	}
	refused := agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", "x", nil, "an image agent needs [runtime] image")
	diags = r.updateFailed(t.Context(), "x", refused)
	if len(diags) != 1 || diags[0].Summary() != "Agent config refused by the runtime" || strings.Contains(diags[0].Detail(), "listening") {
		t.Errorf("a refused config gave %v, want the config error alone", diags)
	}
}
