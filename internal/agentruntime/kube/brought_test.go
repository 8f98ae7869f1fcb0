package kube

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// legacyCard is an A2A 0.3 card, as an agent written for 0.3 serves it at
// /.well-known/agent.json.
func legacyCard(name, description string) string {
	return `{"name":"` + name + `","description":"` + description + `","url":"http://127.0.0.1:1","protocolVersion":"0.3.0",` +
		`"version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
}

// TestBroughtAgent runs an agent of an operator's image: busybox's httpd
// serving an A2A 0.3 card at /.well-known/agent.json, the card handed to it
// by an allowlisted variable. Its Deployment runs the image with the
// command, port, environment and probes the config asks for, hardened as
// every agent, and holds no value of the variable; the agent is found at
// the 0.3 path though the config names none, at the address planned.
func TestBroughtAgent(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	image := broughtImage(t)
	name := "Kube Brought " + randomHex(3)
	// Only the variable holds the description: the Deployment must not.
	description := "handed over by reference " + randomHex(8)
	t.Setenv("KUBE_TEST_CARD", legacyCard(name, description))
	const listen, literal = 9191, "costs $(five) $$ and $HOME"
	command := []string{"/bin/sh", "-c", `echo "literal: $LITERAL" && mkdir -p /tmp/www/.well-known && ` +
		`printf '%s' "$CARD_JSON" >/tmp/www/.well-known/agent.json && exec httpd -f -p "$HOST:$PORT" -h /tmp/www`}
	config := agentConfig(name, fmt.Sprintf("[server]\nhttp_port = 8181\n[runtime]\nimage = %q\npull = \"never\"\nport = %d\ncommand = %s\n"+
		"[runtime.env]\nCARD_JSON = \"${KUBE_TEST_CARD}\"\nLITERAL = %q\nGREETING = \"${KUBE_TEST_UNSET:-hello} on ${PORT}\"",
		image, listen, a2acli.TOMLArray(command...), literal))
	spec := agentruntime.Spec{Config: config, Allowlist: &agentruntime.EnvAllowlist{Name: "brought", Variables: []string{"KUBE_TEST_CARD", "KUBE_TEST_UNSET"}}}
	cfg, err := agentconfig.Parse(config)
	if err != nil {
		t.Fatal(err)
	}
	planned, ok := rt.PlannedAddress(cfg)
	if !ok {
		t.Fatal("PlannedAddress of a brought agent whose config sets http_port planned nothing")
	}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	if got := (agentruntime.Address{Endpoint: a.Endpoint, CardURL: a.CardURL, Port: a.Port}); got != planned {
		t.Errorf("Provision gave %+v, PlannedAddress planned %+v", got, planned)
	}

	ctx := testContext(t)
	objectName := rt.objectName(a.ID)
	d, err := rt.cs.AppsV1().Deployments(opts.Namespace).Get(ctx, objectName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dump, _ := json.Marshal(d); strings.Contains(string(dump), description) {
		t.Errorf("the Deployment shows the value of KUBE_TEST_CARD:\n%s", dump)
	}
	svc, err := rt.cs.CoreV1().Services(opts.Namespace).Get(ctx, objectName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, v := range c.Env {
		env[v.Name] = v
	}
	secretRef := env["KUBE_TEST_CARD"].ValueFrom
	checks := map[string]bool{
		"the image, never pulled":               c.Image == image && c.ImagePullPolicy == corev1.PullNever,
		"the command, escaped from the kubelet": slices.Equal(c.Args, []string{"/bin/sh", "-c", strings.ReplaceAll(command[2], "$", "$$")}) && len(c.Command) == 0,
		"the port in the pod and the Service":   c.Ports[0].ContainerPort == listen && c.Ports[0].Name == svc.Spec.Ports[0].TargetPort.StrVal && svc.Spec.Ports[0].Port == 8181,
		"PORT, HOST and the advertised URL": env["PORT"].Value == strconv.Itoa(listen) && env["HOST"].Value == "0.0.0.0" &&
			env["A2A_ADVERTISED_URL"].Value == a.Endpoint,
		"the variable by reference, required":      env["CARD_JSON"].Value == "$(KUBE_TEST_CARD)" && secretRef != nil && secretRef.SecretKeyRef != nil && secretRef.SecretKeyRef.Optional == nil,
		"a default for an allowlisted unset one":   env["GREETING"].Value == "hello on 9191",
		"literal text escaped":                     env["LITERAL"].Value == strings.ReplaceAll(literal, "$", "$$"),
		"ready once the port answers":              c.StartupProbe.TCPSocket != nil && c.StartupProbe.TCPSocket.Port.IntValue() == listen && c.ReadinessProbe.TCPSocket.Port.IntValue() == listen,
		"both card paths recorded":                 d.Annotations[annotationCardPaths] == "/.well-known/agent-card.json,/.well-known/agent.json",
		"hardened: non-root, read-only, no caps":   *pod.SecurityContext.RunAsUser == DefaultUser && *c.SecurityContext.ReadOnlyRootFilesystem && c.SecurityContext.Capabilities.Drop[0] == "ALL",
		"hardened: seccomp RuntimeDefault, limits": pod.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault && !c.Resources.Limits.Memory().IsZero(),
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("the brought agent's Deployment lacks: %s\n%+v", what, c)
		}
	}

	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID); err != nil {
		t.Fatalf("WaitHealthy: health %s: %v", h, err)
	}
	got, err := newRuntime(t, opts).Get(testContext(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Health != agentruntime.HealthHealthy || got.Card == nil || got.Card.Card.Description != description || got.CardURL != planned.CardURL {
		t.Errorf("Get from a fresh runtime = health %s, card %+v at %s; want healthy with the 0.3 card, at %s", got.Health, got.Card, got.CardURL, planned.CardURL)
	}
	waitLogLine(t, rt, a.ID, "literal: "+literal)
}

// waitLogLine waits until the agent's logs hold line.
func waitLogLine(t *testing.T, rt *Runtime, id, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		lines, err := rt.Logs(testContext(t), id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, line) }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's logs do not hold %q:\n%s", line, strings.Join(lines, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestPodExpander: what the runtime owns is filled in, an allowlisted
// variable with a value is handed to the kubelet by name, a default stands
// in for one without, and every other $ is kept from the kubelet.
func TestPodExpander(t *testing.T) {
	t.Setenv("KUBE_TEST_SET", "secret-value")
	owned := launch.Owned{Host: launch.ListenAll, Port: 9000, AdvertisedURL: "http://a:1/$x"}
	x := podExpander{owned: owned.Values(), injected: []string{"KUBE_TEST_SET", "KUBE_TEST_NOT_SET"}, referenced: map[string]bool{}}
	tests := []struct{ in, want string }{
		{"--port=${PORT}", "--port=9000"},
		{"${HOST}", "0.0.0.0"},
		{"${A2A_ADVERTISED_URL}", "http://a:1/$$x"},
		{"key=${KUBE_TEST_SET}", "key=$(KUBE_TEST_SET)"},
		{"${KUBE_TEST_SET:-d}", "$(KUBE_TEST_SET)"},
		{"${KUBE_TEST_NOT_SET:-$(d)}", "$$(d)"},
		{"$(HOME) $$ $HOME", "$$(HOME) $$$$ $$HOME"},
	}
	for _, tt := range tests {
		if got := x.expand(tt.in); got != tt.want {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !x.referenced["KUBE_TEST_SET"] || x.referenced["KUBE_TEST_NOT_SET"] {
		t.Errorf("referenced = %v, want KUBE_TEST_SET alone", x.referenced)
	}
}
