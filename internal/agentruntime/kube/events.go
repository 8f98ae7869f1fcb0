package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

var _ agentruntime.EventReader = (*Runtime)(nil)

// Events returns the last max events the cluster recorded of the agent's
// ReplicaSets and pods, oldest first, as kubectl describe shows them: why
// a pod cannot be created, scheduled, pulled, started or probed, which its
// log cannot tell. The Deployment's own events, its scaling, tell nothing
// of that and are left out.
func (r *Runtime) Events(ctx context.Context, id string, max int) ([]string, error) {
	const op = "events"
	if _, err := r.getDeployment(ctx, op, id); err != nil {
		return nil, err
	}
	sel := metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: r.selector(id)})}
	sets, err := r.cs.AppsV1().ReplicaSets(r.opts.Namespace).List(ctx, sel)
	if err != nil {
		return nil, r.clusterError(op, id, err)
	}
	pods, err := r.pods(ctx, op, id)
	if err != nil {
		return nil, err
	}
	var uids []types.UID
	for _, s := range sets.Items {
		uids = append(uids, s.UID)
	}
	for _, p := range pods {
		uids = append(uids, p.UID)
	}
	return r.eventsOf(ctx, op, id, uids, max)
}

// eventsOf returns the last max events of the objects uids names, oldest
// first (all when max <= 0).
func (r *Runtime) eventsOf(ctx context.Context, op, id string, uids []types.UID, max int) ([]string, error) {
	var events []corev1.Event
	for _, uid := range uids {
		list, err := r.cs.CoreV1().Events(r.opts.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(uid)).String(),
		})
		if err != nil {
			return nil, r.clusterError(op, id, err)
		}
		events = append(events, list.Items...)
	}
	sort.SliceStable(events, func(i, j int) bool { return lastSeen(events[i]).Before(lastSeen(events[j])) })
	if max > 0 && len(events) > max {
		events = events[len(events)-max:]
	}
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = eventLine(e)
	}
	return lines, nil
}

// lastSeen is when the event last happened, whichever of its API's fields
// the component that recorded it filled.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

// eventLine is the event as one line: its type, reason, object, message,
// and how often it happened when more than once.
func eventLine(e corev1.Event) string {
	count := e.Count
	if e.Series != nil {
		count = e.Series.Count
	}
	line := fmt.Sprintf("%s %s %s/%s: %s", e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name,
		strings.TrimSpace(e.Message))
	if count > 1 {
		line += fmt.Sprintf(" (%d times)", count)
	}
	return line
}
