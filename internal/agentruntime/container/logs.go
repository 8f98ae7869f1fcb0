package container

import (
	"bytes"
	"context"
	"strconv"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Logs returns the last tail lines the engine kept of the agent's stdout and
// stderr, in the order they were written (all lines when tail <= 0).
func (r *Runtime) Logs(ctx context.Context, id string, tail int) ([]string, error) {
	const op = "logs"
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true}
	if tail > 0 {
		opts.Tail = strconv.Itoa(tail)
	}
	c, err := r.inspect(ctx, op, id)
	if err != nil {
		return nil, err
	}
	rc, err := r.cli.ContainerLogs(ctx, c.ID, opts)
	if err != nil {
		return nil, r.engineError(op, id, err)
	}
	defer func() { _ = rc.Close() }()
	// Containers run without a TTY, so the engine multiplexes both streams
	// into one; writing both to one buffer keeps their interleaving. The
	// engine tails by lines, and a log without line breaks would come
	// whole: only its end is kept.
	if tail <= 0 {
		var out bytes.Buffer
		if _, err := stdcopy.StdCopy(&out, &out, rc); err != nil {
			return nil, r.engineError(op, id, err)
		}
		return agentruntime.TailLines(out.Bytes(), 0, false), nil
	}
	out := agentruntime.NewTailBuffer(agentruntime.LogBudget(tail))
	if _, err := stdcopy.StdCopy(out, out, rc); err != nil {
		return nil, r.engineError(op, id, err)
	}
	return out.Lines(tail), nil
}
