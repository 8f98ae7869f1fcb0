package kube

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// A pod's log goes with the pod, and a stopped agent has none: Stop keeps
// what its pods wrote in the state dir, up to keptLogBytes per agent, and
// Logs reads that before the logs of the pods running now.
const (
	logDir       = "kube/logs"
	keptLogBytes = 1 << 20
	agentName    = "agent" // the container's name in every pod
)

// logFile keeps the logs of the agent whose objects are named name.
func (r *Runtime) logFile(name string) string {
	return path.Join(logDir, r.opts.Namespace+"-"+name+".log")
}

// Logs returns the last tail lines the agent's pods wrote, those of pods
// that are gone first (all lines when tail <= 0).
func (r *Runtime) Logs(ctx context.Context, id string, tail int) ([]string, error) {
	const op = "logs"
	d, err := r.getDeployment(ctx, op, id)
	if err != nil {
		return nil, err
	}
	pods, err := r.pods(ctx, op, id)
	if err != nil {
		return nil, err
	}
	kept, err := r.opts.StateDir.ReadFile(r.logFile(d.Name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the logs kept of the agent's earlier pods")
	}
	limit := keptLogBytes
	if tail > 0 {
		limit = agentruntime.LogBudget(tail)
	}
	out := agentruntime.NewTailBuffer(limit)
	_, _ = out.Write(kept)
	r.writePodLogs(ctx, out, pods, tail)
	return out.Lines(tail), nil
}

// writePodLogs writes the last tail lines of each pod's agent to out.
func (r *Runtime) writePodLogs(ctx context.Context, out io.Writer, pods []corev1.Pod, tail int) {
	for _, p := range pods {
		status := agentStatus(p)
		if status.RestartCount > 0 {
			// The container that crashed said why; the one the kubelet
			// started in its place may not have written a line yet.
			_, _ = out.Write(orTerminationMessage(r.podLog(ctx, p.Name, tail, true), status.LastTerminationState.Terminated))
		}
		_, _ = out.Write(orTerminationMessage(r.podLog(ctx, p.Name, tail, false), status.State.Terminated))
	}
}

// kubeletLogError starts what the kubelet answers, as if it were the log,
// for a container it no longer has.
var kubeletLogError = []byte("unable to retrieve container logs for ")

// orTerminationMessage is the log read of a container, or, when none could
// be read, the tail of it the kubelet kept in the pod's status when the
// container exited (terminated; nil while it runs).
func orTerminationMessage(log []byte, terminated *corev1.ContainerStateTerminated) []byte {
	if len(bytes.TrimSpace(log)) > 0 {
		return log
	}
	if terminated == nil || terminated.Message == "" {
		return nil
	}
	message := []byte(terminated.Message)
	if !bytes.HasSuffix(message, []byte("\n")) {
		message = append(message, '\n')
	}
	return message
}

// podLog is the last tail lines of the agent's container in pod name, or of
// the one before it when previous is set; nothing when it has none yet.
func (r *Runtime) podLog(ctx context.Context, name string, tail int, previous bool) []byte {
	opts := &corev1.PodLogOptions{Container: agentName, Previous: previous}
	if tail > 0 {
		opts.TailLines = ptr(int64(tail))
	}
	return logRead(r.cs.CoreV1().Pods(r.opts.Namespace).GetLogs(name, opts).DoRaw(ctx))
}

// logRead is the log a request for a container's log read: nothing when it
// failed, or when the kubelet answered, in place of the log, that it no
// longer has the container.
func logRead(data []byte, err error) []byte {
	if err != nil || bytes.HasPrefix(data, kubeletLogError) {
		return nil
	}
	return data
}

// capture is the logs of pods being followed until they end.
type capture struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	logs   []bytes.Buffer
}

// follow follows the log of each pod from its start, until the pod's
// container exits or the capture is waited for too long.
func (r *Runtime) follow(ctx context.Context, pods []corev1.Pod) *capture {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.StopGracePeriod+time.Minute)
	c := &capture{cancel: cancel, logs: make([]bytes.Buffer, len(pods))}
	for i, p := range pods {
		c.wg.Go(func() {
			req := r.cs.CoreV1().Pods(r.opts.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: agentName, Follow: true})
			stream, err := req.Stream(ctx)
			if err != nil {
				return
			}
			defer func() { _ = stream.Close() }()
			_, _ = io.Copy(&c.logs[i], io.LimitReader(stream, keptLogBytes))
		})
	}
	return c
}

// wait returns the logs once every followed one ended.
func (c *capture) wait() []byte {
	c.wg.Wait()
	c.cancel()
	var all []byte
	for _, l := range c.logs {
		all = append(all, l.Bytes()...)
	}
	return all
}

// keepLogs adds logs to the agent's kept logs, keeping the last
// keptLogBytes.
func (r *Runtime) keepLogs(op, id, name string, logs []byte) error {
	if len(logs) == 0 {
		return nil
	}
	kept, err := r.opts.StateDir.ReadFile(r.logFile(name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the logs kept of the agent's earlier pods")
	}
	data := slices.Concat(kept, logs)
	if over := len(data) - keptLogBytes; over > 0 {
		// Whole lines only: from the first line break past the excess.
		data = data[over:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	if err := r.opts.StateDir.WriteFileUnsynced(r.logFile(name), data); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "keep the logs of the agent's pods")
	}
	return nil
}

// removeLogs removes the kept logs of agent id, whose objects are named
// name.
func (r *Runtime) removeLogs(op, id, name string) error {
	if err := r.opts.StateDir.Remove(r.logFile(name)); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "remove the logs kept of the agent")
	}
	return nil
}
