//go:build linux

package provider

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeExamples are the examples that need a cluster, which
// TestAccKubeExamples applies on the test cluster as TestAccExamples
// applies the others.
var kubeExamples = map[string]func(k *kubeCluster) exampleCase{
	"kubernetes-production": productionExample,
}

// TestAccKubeExamples applies every example that needs a cluster, as
// written, with what its header says it needs supplied by the test.
func TestAccKubeExamples(t *testing.T) {
	k := needKube(t)
	for dir, ex := range kubeExamples {
		t.Run(dir, func(t *testing.T) { applyExample(t, dir, ex(k)) })
	}
}

// productionExample runs examples/kubernetes-production in a namespace of
// its own, with the service account it names, from the test image: three
// pods spread, a disruption budget, an autoscaler and a Service a gateway
// routes by.
func productionExample(k *kubeCluster) exampleCase {
	var ns string
	return exampleCase{
		needs: func(t *testing.T, _ string) []string {
			ns = k.namespace(t)
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "search-agent"}}
			if _, err := k.cs.CoreV1().ServiceAccounts(ns).Create(context.Background(), sa, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return []string{"TF_VAR_namespace=" + ns, "TF_VAR_base_image=" + k.image, "TF_VAR_image_pull_policy=Never"}
		},
		check: func(r *exampleRun) {
			ctx := context.Background()
			if got := r.output("replicas"); got != "3" {
				r.t.Errorf("the agent runs %s pods, want 3", got)
			}
			if _, err := k.cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "a2a-search", metav1.GetOptions{}); err != nil {
				r.t.Errorf("the agent's disruption budget: %v", err)
			}
			if _, err := k.cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "a2a-search", metav1.GetOptions{}); err != nil {
				r.t.Errorf("the agent's autoscaler: %v", err)
			}
			svc, err := k.cs.CoreV1().Services(ns).Get(ctx, "a2a-search", metav1.GetOptions{})
			if err != nil || svc.Spec.Ports[0].AppProtocol == nil || *svc.Spec.Ports[0].AppProtocol != "kubernetes.io/h2c" {
				r.t.Errorf("the agent's Service is %+v (%v), want app protocol kubernetes.io/h2c", svc, err)
			}
			pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector("search"), FieldSelector: "status.phase=Running"})
			if err != nil || len(pods.Items) != 3 {
				r.t.Fatalf("the agent runs %d pods (%v), want 3", len(pods.Items), err)
			}
			for _, p := range pods.Items {
				if p.Spec.ServiceAccountName != "search-agent" || len(p.Spec.TopologySpreadConstraints) != 1 {
					r.t.Errorf("pod %s runs as %q with spread %+v, want search-agent, spread across nodes", p.Name, p.Spec.ServiceAccountName, p.Spec.TopologySpreadConstraints)
				}
			}
		},
	}
}
