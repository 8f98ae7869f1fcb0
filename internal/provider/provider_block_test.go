package provider

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/kube"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// unusedResource gives a plan something to do with the provider.
const unusedResource = "resource \"a2a_env_allowlist\" \"test\" {\n  name      = \"unused\"\n  variables = []\n}\n"

// TestProviderBlockValidation checks that mistakes in the provider block
// fail validation, before any runtime is built.
func TestProviderBlockValidation(t *testing.T) {
	tests := []struct {
		name  string
		block string
		want  string
	}{
		{"both adapters", "local {}\n  container {}", `(?s)These attributes cannot be configured together.*local.*container`},
		{"bad grace period", "local {\n    stop_grace_period = \"ten seconds\"\n  }", `"ten seconds" is not a duration`},
		{"negative grace period", "local {\n    stop_grace_period = \"-1s\"\n  }", `must be greater than zero`},
		{"empty state dir", "state_dir = \"\"", `(?s)Empty value.*Leave the attribute out to use the default\s+state\s+directory`},
		{"bad restart policy", "container {\n    restart_policy = \"sometimes\"\n  }", `(?s)restart_policy.*value must be one of`},
		{"kubernetes and container", "kubernetes {\n    base_image = \"a2a:1\"\n  }\n  container {}", `(?s)These attributes cannot be configured together.*container.*kubernetes`},
		{"kubernetes without an image", "kubernetes {}", `(?s)No base image.*set base_image`},
		{"kubernetes empty image", "kubernetes {\n    base_image = \"\"\n  }", `(?s)Empty value.*base_image is required`},
		{"bad namespace", "kubernetes {\n    base_image = \"a2a:1\"\n    namespace = \"Agents\"\n  }", `(?s)Invalid namespace.*"Agents" is not a valid namespace name`},
		{"bad scope", "kubernetes {\n    base_image = \"a2a:1\"\n    scope = \"team_a\"\n  }", `(?s)Invalid scope.*"team_a" is not usable`},
		{"bad pull policy", "kubernetes {\n    base_image = \"a2a:1\"\n    image_pull_policy = \"Sometimes\"\n  }", `(?s)image_pull_policy.*value must be one of`},
		{"bad service type", "kubernetes {\n    base_image = \"a2a:1\"\n    service_type = \"Ingress\"\n  }", `(?s)service_type.*value must be one of`},
		{"bad kubernetes grace period", "kubernetes {\n    base_image = \"a2a:1\"\n    stop_grace_period = \"soon\"\n  }", `"soon" is not a duration`},
		{"bad pull secret", kubeBlock(`image_pull_secrets = ["registry", "Registry Creds"]`),
			`(?s)Invalid image pull secret.*"Registry Creds" cannot name a\s+Secret`},
		{"repeated pull secret", kubeBlock(`image_pull_secrets = ["registry", "registry"]`), `(?s)Duplicate List Value.*image_pull_secrets`},
		{"advertised url without id", kubeBlock(`advertised_url = "https://agents.example.com"`),
			`(?s)Invalid advertised URL.*advertised_url.*does not contain \{id\}`},
		{"advertised url not http", kubeBlock(`advertised_url = "{id}.agents.example.com"`),
			`(?s)Invalid advertised URL.*not\s+an\s+http\s+or\s+https\s+URL`},
		{"no replicas", kubeBlock(`replicas = 0`), `(?s)kubernetes.replicas.*must be at least 1`},
		{"bad quantity", kubeBlock("resources {\n    memory_limit = \"lots\"\n  }"),
			`(?s)Invalid quantity.*memory_limit.*"lots" is not a quantity`},
		{"request above limit", kubeBlock("resources {\n    cpu_request = \"2\"\n    cpu_limit = \"1\"\n  }"),
			`(?s)Request above limit.*cpu_request = "2".*cpu request 2 is above the cpu limit 1`},
		{"request above default limit", kubeBlock("resources {\n    memory_request = \"1Gi\"\n  }"),
			`(?s)Request above limit.*memory_request.*above the memory limit 256Mi`},
		{"limit below default request", kubeBlock("resources {\n    cpu_limit = \"5m\"\n  }"),
			`(?s)Request above limit.*cpu_limit = "5m".*cpu request 10m is above the cpu limit 5m`},
		{"default apparmor annotation", kubeBlock(`agent_defaults = { annotations = { "container.apparmor.security.beta.kubernetes.io/agent" = "unconfined" } }`),
			`(?s)Invalid agent default.*kubernetes\.agent_defaults\.annotations:\s+key\s+"container\.apparmor\.security\.beta\.kubernetes\.io/agent"\s+sets\s+the\s+pods'\s+security,\s+which\s+the\s+provider\s+sets\s+itself.*RuntimeDefault.*Remove\s+the\s+key`},
		{"default seccomp annotation, system placement allowed", kubeBlock("allow_system_placement = true\n" +
			`agent_defaults = { annotations = { "seccomp.security.alpha.kubernetes.io/pod" = "unconfined" } }`),
			`(?s)kubernetes\.agent_defaults\.annotations:\s+key\s+"seccomp\.security\.alpha\.kubernetes\.io/pod"`},
		{"default system priority class", kubeBlock(`agent_defaults = { priority_class = "system-node-critical" }`),
			`(?s)Invalid agent default.*kubernetes\.agent_defaults\.priority_class:\s+"system-node-critical".*set\s+allow_system_placement\s+=\s+true\s+in\s+the\s+provider's\s+kubernetes\s+block`},
		{"default control-plane toleration", kubeBlock(`agent_defaults = { tolerations = [{ key = "dedicated", value = "agents" }, { key = "node-role.kubernetes.io/control-plane", operator = "Exists" }] }`),
			`(?s)kubernetes\.agent_defaults\.tolerations\[1\]:\s+key\s+"node-role\.kubernetes\.io/control-plane".*allow_system_placement`},
		{"default toleration of every taint", kubeBlock(`agent_defaults = { tolerations = [{ operator = "Exists" }] }`),
			`(?s)kubernetes\.agent_defaults\.tolerations\[0\]:\s+a\s+toleration\s+without\s+a\s+key\s+tolerates\s+every\s+taint.*allow_system_placement`},
		{"default control-plane selector", kubeBlock(`agent_defaults = { node_selector = { "node-role.kubernetes.io/master" = "" } }`),
			`(?s)kubernetes\.agent_defaults\.node_selector:\s+key\s+"node-role\.kubernetes\.io/master"\s+selects.*allow_system_placement`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir := "  state_dir = \"" + t.TempDir() + "\"\n"
			if strings.HasPrefix(tt.block, "state_dir") {
				stateDir = ""
			}
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "provider \"a2a\" {\n" + stateDir + "  " + tt.block + "\n}\n" + unusedResource,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}

// kubeBlock is a kubernetes block with an image and the given lines.
func kubeBlock(lines string) string {
	return "kubernetes {\n    base_image = \"a2a:1\"\n    " + lines + "\n  }"
}

// TestKubernetesSystemPlacementOptIn: with allow_system_placement, the
// system priority classes and control-plane placement that are refused
// without it reach the adapter's options, and the opt-in with them.
func TestKubernetesSystemPlacementOptIn(t *testing.T) {
	var got *kube.Options
	p := &a2aProvider{version: "test", connect: func(_ context.Context, s settings) (*runtimeDeps, error) {
		got = s.kubernetes
		return &runtimeDeps{runtime: memory.New()}, nil
	}}
	block := kubeBlock(`allow_system_placement = true
    agent_defaults = {
      priority_class = "system-cluster-critical"
      node_selector  = { "node-role.kubernetes.io/control-plane" = "" }
      tolerations    = [{ key = "node-role.kubernetes.io/control-plane", operator = "Exists", effect = "NoSchedule" }, { operator = "Exists" }]
    }`)
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"a2a": providerserver.NewProtocol6WithError(p)},
		Steps: []resource.TestStep{{
			Config:   "provider \"a2a\" {\n  state_dir = \"" + t.TempDir() + "\"\n  " + block + "\n}\n" + unusedResource,
			PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
	want := agentruntime.Workload{
		PriorityClass: "system-cluster-critical", NodeSelector: map[string]string{"node-role.kubernetes.io/control-plane": ""},
		Tolerations: []agentruntime.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: "Exists", Effect: "NoSchedule"}, {Operator: "Exists"}},
	}
	if got == nil || !got.AllowSystemPlacement || !reflect.DeepEqual(got.Workload, want) {
		t.Errorf("kubernetes options = %+v, want system placement allowed and agent defaults %+v", got, want)
	}
}

// TestProviderBlockReportsEveryProblem gives the container block several
// bad values: one validation run reports each of them at its attribute,
// before any runtime is built, and so without any DNS lookup of the host.
func TestProviderBlockReportsEveryProblem(t *testing.T) {
	// Each bad line, and words of the problem reported at it, in the
	// order of the file, which is the order terraform reports them in.
	problems := []struct{ line, problem string }{
		{`host           = "http://nowhere"`, `write tcp:// instead of http://, with the port, such as tcp://nowhere:2376`},
		{`base_image     = "Not An Image"`, `"Not An Image" is not an image reference`},
		{`advertise_host = "not a host!!"`, `"not a host!!" is neither an IP address nor a host name`},
		{`network        = "no such network"`, `container.network must be a network name`},
		{`user       = "a:b:c"`, `container.hardening.user must be a uid or user name`},
		{`pids_limit = -1`, `container.hardening.pids_limit value must be at least 0, got: -1`},
		{`memory_mb  = 3`, `container.hardening.memory_mb value must be at least 6, got: 3`},
		{`cpus       = 0.001`, `container.hardening.cpus value must be at least 0.010000`},
	}
	var lines []string
	want := `(?s)`
	for _, p := range problems {
		lines = append(lines, p.line)
		want += `in provider "a2a":\s+\d+:\s+` + wordsPattern(p.line) + `\s+.*?` + wordsPattern(p.problem) + `.*`
	}
	block := "container {\n" + strings.Join(lines[:4], "\n") + "\nhardening {\n" + strings.Join(lines[4:], "\n") + "\n}\n}"
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      "provider \"a2a\" {\n  state_dir = \"" + t.TempDir() + "\"\n  " + block + "\n}\n" + unusedResource,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}},
	})
}

// wordsPattern matches text as terraform prints it: any run of spaces may
// be wrapped onto a new line.
func wordsPattern(text string) string {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, `\s+`)
}

// TestProviderBlockThroughValidate runs terraform validate, where input
// variables are not known yet: settings taken from them pass, and only the
// literal mistake is reported.
func TestProviderBlockThroughValidate(t *testing.T) {
	requireTerraform(t)
	run := &cliRun{t: t, dir: t.TempDir(), coreLog: filepath.Join(t.TempDir(), "terraform.log")}
	config := `
variable "host" { type = string }
variable "network" { type = string }
variable "user" { type = string }
variable "memory_mb" { type = number }
variable "cpus" { type = number }

provider "a2a" {
  state_dir = "` + t.TempDir() + `"
  container {
    host           = var.host
    network        = var.network
    advertise_host = "not a host!!"
    hardening {
      user      = var.user
      memory_mb = var.memory_mb
      cpus      = var.cpus
    }
  }
}
` + unusedResource
	if err := os.WriteFile(filepath.Join(run.dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run.terraform("init", "-input=false"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	out, err := run.terraform("validate", "-no-color")
	if err == nil {
		t.Fatalf("terraform validate accepted advertise_host \"not a host!!\":\n%s", out)
	}
	if got := strings.Count(out, "Error: "); got != 1 || !regexp.MustCompile(`(?s)Invalid advertise host.*advertise_host = "not a host!!"`).MatchString(out) {
		t.Errorf("terraform validate reported %d errors, want the advertise host alone:\n%s", got, out)
	}
}

// TestKubernetesBlockSettings: every setting of the kubernetes block
// reaches the adapter's options as written, and those left out stay
// zero, for the adapter's defaults; the provider's release goes with
// them, for the pods' hosts to check.
func TestKubernetesBlockSettings(t *testing.T) {
	var got *kube.Options
	p := &a2aProvider{version: "test", connect: func(_ context.Context, s settings) (*runtimeDeps, error) {
		got = s.kubernetes
		return &runtimeDeps{runtime: memory.New()}, nil
	}}
	block := kubeBlock(`image_pull_secrets = ["registry-a", "registry-b"]
    advertised_url = "https://{id}.agents.example.com"
    replicas = 3
    resources {
      cpu_request = "50m"
      memory_limit = "1Gi"
    }`)
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"a2a": providerserver.NewProtocol6WithError(p)},
		Steps: []resource.TestStep{{
			Config:   "provider \"a2a\" {\n  state_dir = \"" + t.TempDir() + "\"\n  " + block + "\n}\n" + unusedResource,
			PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
	want := kube.Options{
		Version: "test", BaseImage: "a2a:1", ImagePullSecrets: []string{"registry-a", "registry-b"}, AdvertisedURL: "https://{id}.agents.example.com",
		Replicas: 3, Resources: kube.Resources{CPURequest: "50m", MemoryLimit: "1Gi"},
	}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("kubernetes options = %+v, want %+v", got, want)
	}
}
