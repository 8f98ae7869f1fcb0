package kube

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestDeploymentHoldsNoValues provisions an agent with an allowlisted
// variable and a write-only value, and reads its objects back from the
// cluster: the values are in its Secret alone, the pods are hardened, and
// the labels carry what List and Recover select by.
func TestDeploymentHoldsNoValues(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	const allowed, written = "allowed-value-4711", "written-value-0815"
	t.Setenv("KUBE_TEST_ALLOWED", allowed)
	spec := agentruntime.Spec{
		Config:    agentConfig("Kube Objects", "# ${KUBE_TEST_ALLOWED} ${KUBE_TEST_WRITTEN}"),
		Allowlist: &agentruntime.EnvAllowlist{Name: "objects", Variables: []string{"KUBE_TEST_ALLOWED"}},
		WriteOnly: agentruntime.WriteOnlyValues{"KUBE_TEST_WRITTEN": written},
	}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	ctx := testContext(t)
	name := rt.objectName(a.ID)
	d, err := rt.cs.AppsV1().Deployments(opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dump, _ := json.Marshal(d)
	for _, v := range []string{allowed, written} {
		if strings.Contains(string(dump), v) {
			t.Errorf("the Deployment shows the value %q:\n%s", v, dump)
		}
	}
	s, err := rt.cs.CoreV1().Secrets(opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Data["KUBE_TEST_ALLOWED"]) != allowed || !strings.Contains(string(s.Data[secretKey]), written) {
		t.Errorf("the Secret holds %v, want the allowlisted and the write-only value", keys(s.Data))
	}

	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	sc := c.SecurityContext
	checks := map[string]bool{
		"runs as non-root":                   pod.SecurityContext.RunAsNonRoot != nil && *pod.SecurityContext.RunAsNonRoot,
		"seccomp RuntimeDefault":             pod.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault,
		"read-only root filesystem":          sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem,
		"no privilege escalation":            sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
		"every capability dropped":           len(sc.Capabilities.Drop) == 1 && sc.Capabilities.Drop[0] == "ALL",
		"memory and cpu limits":              !c.Resources.Limits.Memory().IsZero() && !c.Resources.Limits.Cpu().IsZero(),
		"no service account token":           pod.AutomountServiceAccountToken != nil && !*pod.AutomountServiceAccountToken,
		"ready once the card answers":        c.StartupProbe != nil && c.StartupProbe.HTTPGet.Path == "/.well-known/agent-card.json" && c.ReadinessProbe != nil,
		"no pods before start":               *d.Spec.Replicas == 0,
		"labelled with id, scope and digest": d.Spec.Template.Labels[labelAgentID] == a.ID && d.Labels[labelScope] == opts.Scope && d.Spec.Template.Labels[labelConfigSHA] == a.ConfigSHA256[:32],
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("the Deployment's pods lack: %s", what)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestNodePortService: service_type NodePort gives the agent's Service a
// node port, which provisioning the agent again keeps.
func TestNodePortService(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	opts.ServiceType = string(corev1.ServiceTypeNodePort)
	rt := newRuntime(t, opts)
	spec := agentruntime.Spec{Config: agentConfig("Kube Node Port")}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	nodePort := func() int32 {
		t.Helper()
		s, err := rt.cs.CoreV1().Services(opts.Namespace).Get(testContext(t), rt.objectName(a.ID), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Spec.Type != corev1.ServiceTypeNodePort || s.Spec.Ports[0].NodePort == 0 || s.Spec.Ports[0].Port != int32(a.Port) {
			t.Fatalf("the agent's Service is %s with ports %+v, want a NodePort Service on port %d", s.Spec.Type, s.Spec.Ports, a.Port)
		}
		return s.Spec.Ports[0].NodePort
	}
	first := nodePort()
	spec.Config = append(spec.Config, "\n# provisioned again\n"...)
	if _, err := rt.Provision(testContext(t), spec); err != nil {
		t.Fatal(err)
	}
	if again := nodePort(); again != first {
		t.Errorf("provisioned again, the Service moved from node port %d to %d", first, again)
	}
}

// TestProvisionSettings: on the cluster, the Deployment of an agent
// carries the runtime's image pull secrets and resources and runs its
// default replicas, and the agent advertises the URL the runtime's
// template gives it, in its card as well.
func TestProvisionSettings(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	opts.ImagePullSecrets = []string{"registry-creds"}
	opts.AdvertisedURL = "https://{id}.{namespace}.agents.example.com/"
	opts.Replicas = 2
	opts.Resources = Resources{CPURequest: "20m", MemoryRequest: "48Mi", CPULimit: "300m", MemoryLimit: "200Mi"}
	rt := newRuntime(t, opts)
	a, err := rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("Kube Settings")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	want := "https://" + a.ID + "." + opts.Namespace + ".agents.example.com/"
	if a.Endpoint != want || a.CardURL != want+".well-known/agent-card.json" || a.Replicas != 2 {
		t.Errorf("Provision = endpoint %q, card URL %q, %d replicas; want %q, its card under it, 2 replicas", a.Endpoint, a.CardURL, a.Replicas, want)
	}
	d, err := rt.cs.AppsV1().Deployments(opts.Namespace).Get(testContext(t), rt.objectName(a.ID), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if len(pod.ImagePullSecrets) != 1 || pod.ImagePullSecrets[0].Name != "registry-creds" {
		t.Errorf("image pull secrets = %+v, want registry-creds", pod.ImagePullSecrets)
	}
	res := pod.Containers[0].Resources
	got := []string{res.Requests.Cpu().String(), res.Requests.Memory().String(), res.Limits.Cpu().String(), res.Limits.Memory().String()}
	if strings.Join(got, " ") != "20m 48Mi 300m 200Mi" {
		t.Errorf("requests and limits = %v, want 20m 48Mi 300m 200Mi", got)
	}
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	waitPods(t, rt, a.ID, 2)
	a, err = rt.Get(testContext(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Card == nil || len(a.Card.Card.SupportedInterfaces) == 0 || a.Card.Card.SupportedInterfaces[0].URL != want {
		t.Errorf("the agent's card = %+v, want it to advertise %s", a.Card, want)
	}
}
