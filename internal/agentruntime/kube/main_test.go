package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubeforward"
)

// ImageEnv names the base image the tests run agents from, which the
// cluster KUBECONFIG leads to has without pulling it: its entrypoint is the
// agent host, of release hostbuild.Release. `make test-kube` builds and
// loads it.
const ImageEnv = "A2A_KUBE_TEST_IMAGE"

// requireKube is set where a cluster is brought up for the tests (make
// test-kube, CI): a missing one fails them.
var requireKube = os.Getenv("A2A_REQUIRE_KUBE") == "1"

// missing skips the test when the cluster is absent, or fails it where one
// is required.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if requireKube {
		t.Fatalf("A2A_REQUIRE_KUBE=1 but "+format, args...)
	}
	t.Skipf(format, args...)
}

// clientset connects to the cluster KUBECONFIG names, or skips (or fails)
// the test when there is none.
func clientset(t testing.TB) kubernetes.Interface {
	t.Helper()
	if os.Getenv("KUBECONFIG") == "" || os.Getenv(ImageEnv) == "" {
		missing(t, "KUBECONFIG and %s are not both set: run make test-kube", ImageEnv)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		missing(t, "load KUBECONFIG: %v", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		missing(t, "no cluster answers at %s: %v", cfg.Host, err)
	}
	return cs
}

// newNamespace creates a namespace of its own for a test, deleted with
// everything in it when the test ends.
func newNamespace(t testing.TB) string {
	t.Helper()
	cs := clientset(t)
	ns := "a2a-test-" + randomHex(4)
	ctx := testContext(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	t.Cleanup(func() {
		if err := cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}); err != nil {
			t.Logf("cleanup: delete namespace %s: %v", ns, err)
		}
	})
	// Pods are refused until the namespace's default service account exists.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("namespace %s has no default service account: %v", ns, err)
	}
	return ns
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// testOptions are the options of runtimes in namespace ns sharing one
// state dir, as the processes of one machine would.
func testOptions(t testing.TB, ns string) Options {
	return Options{
		Namespace:       ns,
		Scope:           "t" + randomHex(4),
		BaseImage:       os.Getenv(ImageEnv),
		Version:         hostbuild.Release,
		PullPolicy:      string(corev1.PullNever),
		StopGracePeriod: 5 * time.Second,
		StateDir:        statedirtest.Open(t, t.TempDir()),
	}
}

func newRuntime(t testing.TB, opts Options) *Runtime {
	t.Helper()
	rt, err := New(testContext(t), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return rt
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// agentConfig is a minimal config the built-in host runs; extra lines are
// appended verbatim.
func agentConfig(name string, extra ...string) []byte {
	return fmt.Appendf(nil, "[agent]\nname = %q\ndescription = \"kubernetes adapter test agent\"\n%s\n", name, strings.Join(extra, "\n"))
}

// fetchCard reads the agent's card through the API server's proxy to its
// Service, the way the tests' machine reaches agents in the cluster.
func fetchCard(ctx context.Context, rt *Runtime, a agentruntime.Agent) ([]byte, error) {
	status, body, err := viaProxy(ctx, rt, a, http.MethodGet, card.WellKnownPath, nil, nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("GET %s of agent %s: %d %s", card.WellKnownPath, a.ID, status, http.StatusText(status))
	}
	return body, err
}

// reach forwards a port of this machine to the agent host's port in one
// running pod of agent a, until the test ends, and returns its base URL:
// unlike the API server's proxy, it carries any protocol, gRPC too.
func reach(t *testing.T, rt *Runtime, a agentruntime.Agent) string {
	t.Helper()
	ctx := testContext(t)
	pods, err := rt.cs.CoreV1().Pods(rt.opts.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: rt.selector(a.ID)}),
		FieldSelector: "status.phase=Running",
	})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("no running pod of agent %s to forward to: %v", a.ID, err)
	}
	local, stop, err := kubeforward.Forward(ctx, rt.rest, rt.cs, rt.opts.Namespace, pods.Items[0].Name, 0, containerPort)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return fmt.Sprintf("http://127.0.0.1:%d", local)
}

// viaProxy sends a request for path to the agent through the API server's
// proxy to its Service, and returns the status and body of the answer.
func viaProxy(ctx context.Context, rt *Runtime, a agentruntime.Agent, method, path string, header http.Header, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(rt.serviceProxy(rt.knownName(a.ID), a.Port), "/")+path, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := rt.proxy.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = res.Body.Close() }()
	answer, err := io.ReadAll(res.Body)
	return res.StatusCode, answer, err
}
