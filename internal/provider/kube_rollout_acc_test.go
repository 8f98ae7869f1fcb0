package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// TestAccKubeAgent_rollout: an agent of two pods under a steady flow of
// calls through its Service answers every one while apply changes its
// config, in new pods. A change whose new pods cannot run fails the apply
// with their log and events, while the old pods answer every call; the
// state keeps the config that serves, so the next plan tries again, and
// an apply with a config that runs converges.
func TestAccKubeAgent_rollout(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Rollout")
	const empty = "A2A_ACC_KUBE_ROLLOUT_EMPTY"
	t.Setenv(empty, "")
	agent := func(toml string) string { return acc.agentAllowing(toml, id, empty, "  replicas = 2") }
	// An empty bearer token would turn authentication off, so the host
	// refuses it and exits.
	broken := agent(fmt.Sprintf("[agent]\nname = %q\n[auth]\nbearer_token = \"$${%s}\"", name, empty))
	f := &callFlow{t: t, client: func(ctx context.Context) (*a2aclient.Client, error) { return k.serviceClient(ctx, ns, id) }}
	var pods []string
	serves := func(description string) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			k.checkPods(ns, id, 2),
			k.checkServiceCard(ns, id, description),
			resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
				if slices.ContainsFunc(strings.Split(v, ","), func(p string) bool { return slices.Contains(pods, p) }) {
					return fmt.Errorf("pods %s are still those of before the change, %v", v, pods)
				}
				pods = strings.Split(v, ",")
				return nil
			}),
		)
	}
	updates := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate)}}
	notUpdated := `(?s)` + wordsPattern("Agent "+id+" was not updated: its new instances did not become healthy") + `.*` + wordsPattern("The previous instances serve on") +
		`.*Last \d+ lines of the agent's log:.*` + empty + `.*Last \d+ events of the agent:.*` + wordsPattern("pod/a2a-"+id)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{Config: agent(echoConfig(name, "first")), Check: serves("first")},
			{
				PreConfig:        f.start,
				Config:           agent(echoConfig(name, "rolled out")),
				ConfigPlanChecks: updates,
				Check:            resource.ComposeAggregateTestCheckFunc(f.checkNoneFailed("a config change rolled out, replicas = 2", 20), serves("rolled out")),
			},
			{PreConfig: f.start, Config: broken, ConfigPlanChecks: updates, ExpectError: regexp.MustCompile(notUpdated)},
			{
				// The next plan tries again, and fails again; the old pods
				// answered every call meanwhile.
				PreConfig: func() {
					if err := f.checkNoneFailed("a rollout that failed, replicas = 2", 20)(nil); err != nil {
						t.Fatal(err)
					}
					k.wantPods(t, ns, id, pods)
				},
				Config: broken, ConfigPlanChecks: updates, ExpectError: regexp.MustCompile(notUpdated),
			},
			{Config: agent(echoConfig(name, "fixed")), ConfigPlanChecks: updates, Check: serves("fixed")},
		},
	})
}

// checkServiceCard checks the description of the card the agent serves
// through its Service, reached through the API server's proxy.
func (k *kubeCluster) checkServiceCard(ns, id, description string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		transport, err := rest.TransportFor(k.cfg)
		if err != nil {
			return err
		}
		url := strings.TrimSuffix(k.cfg.Host, "/") + "/api/v1/namespaces/" + ns + "/services/http:a2a-" + id + ":8080/proxy" + card.WellKnownPath
		return fetchCardVia(&http.Client{Transport: transport}, url, descriptionIs(description))
	}
}

// wantPods fails the test unless the agent runs exactly pods, as ready
// pods of its Deployment.
func (k *kubeCluster) wantPods(t *testing.T, ns, id string, pods []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p.Name)
		}
	}
	slices.Sort(live)
	if !slices.Equal(live, pods) {
		t.Fatalf("after the failed rollout the agent runs pods %v, want those of before, %v", live, pods)
	}
}
