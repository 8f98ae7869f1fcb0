package kube

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// TestValidateAdvertisedURL: a template must give every agent an absolute
// http or https URL of its own.
func TestValidateAdvertisedURL(t *testing.T) {
	tests := []struct {
		template string
		want     string // in the error; empty: accepted
	}{
		{"https://{id}.agents.example.com", ""},
		{"http://agents.example.com:8443/{namespace}/{id}/", ""},
		{"https://{id}-{namespace}.example.com/{scope}/a2a", ""},
		{"https://agents.example.com", "does not contain {id}"},
		{"https://{name}.example.com/{id}", "placeholder other than {id}, {namespace} and {scope}"},
		{"ftp://{id}.example.com", "not an http or https URL"},
		{"/agents/{id}", "not an http or https URL"},
		{"https://example.com/?agent={id}", "not an http or https URL"},
		{"https://{id}@example.com", "not an http or https URL"},
		{"https://example.com:{id}", "is not a URL"},
		{"https://example.com/{id}/..", "gives two agents the same URL"},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			err := ValidateAdvertisedURL(tt.template)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("= %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestValidateResources: quantities must parse and be positive, and a
// request may not exceed its limit, the defaults included.
func TestValidateResources(t *testing.T) {
	tests := []struct {
		name string
		r    Resources
		want string
	}{
		{"defaults", Resources{}, ""},
		{"all set", Resources{CPURequest: "0.25", MemoryRequest: "128Mi", CPULimit: "1", MemoryLimit: "1Gi"}, ""},
		{"request equals limit", Resources{CPURequest: "500m", CPULimit: "0.5"}, ""},
		{"not a quantity", Resources{MemoryLimit: "lots"}, `memory_limit "lots" is not a quantity`},
		{"zero", Resources{CPULimit: "0"}, `cpu_limit "0" must be greater than zero`},
		{"negative", Resources{MemoryRequest: "-1Mi"}, `memory_request "-1Mi" must be greater than zero`},
		{"request above limit", Resources{CPURequest: "2", CPULimit: "1"}, "cpu request 2 is above the cpu limit 1"},
		{"request above default limit", Resources{MemoryRequest: "1Gi"}, "memory request 1Gi is above the memory limit 256Mi"},
		{"limit below default request", Resources{CPULimit: "5m"}, "cpu request 10m is above the cpu limit 5m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.withDefaults().validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("= %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestOptionsRefused: withDefaults refuses settings the cluster would
// refuse later, naming the setting.
func TestOptionsRefused(t *testing.T) {
	base := Options{BaseImage: "a2a:test"}
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"pull secret", func(o *Options) { o.ImagePullSecrets = []string{"registry", "Registry_Creds"} }, `image_pull_secrets: "Registry_Creds" cannot name a Secret`},
		{"advertised url", func(o *Options) { o.AdvertisedURL = "https://agents.example.com" }, "advertised_url"},
		{"replicas", func(o *Options) { o.Replicas = -1 }, "replicas is -1"},
		{"resources", func(o *Options) { o.Resources.CPURequest = "1" }, "cpu request 1 is above the cpu limit 500m"},
		{"security annotation default", func(o *Options) {
			o.Workload.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
		}, "agent_defaults.annotations: key \"seccomp.security.alpha.kubernetes.io/pod\""},
		{"system priority default", func(o *Options) { o.Workload.PriorityClass = "system-node-critical" }, "agent_defaults.priority_class"},
		{"security annotation default, system placement allowed", func(o *Options) {
			o.AllowSystemPlacement = true
			o.Workload.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/agent": "unconfined"}
		}, "agent_defaults.annotations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.change(&o)
			if _, err := o.withDefaults(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("withDefaults = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestDeploymentSettings: the provider block's pull secrets, resources
// and advertised URL reach every agent's Deployment, and an agent config's
// own advertised_url wins over the template.
func TestDeploymentSettings(t *testing.T) {
	o, err := Options{
		BaseImage: "a2a:test", Namespace: "agents", ImagePullSecrets: []string{"registry-a", "registry-b"},
		AdvertisedURL: "https://{id}.{namespace}.example.com",
		Resources:     Resources{CPURequest: "100m", MemoryLimit: "512Mi"},
	}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	r := &Runtime{opts: o}
	tests := []struct {
		name, extra, endpoint string
	}{
		{"template", "", "https://settings.agents.example.com"},
		{"config's own", "[server]\nadvertised_url = \"https://own.example.org/a2a\"", "https://own.example.org/a2a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := agentconfig.Parse(agentConfig("Settings", tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			b := blueprint{name: r.objectName(cfg.ID()), cfg: cfg, port: 8080, replicas: 1}
			if got := r.endpoint(b); got != tt.endpoint {
				t.Errorf("endpoint = %q, want %q", got, tt.endpoint)
			}
			if addr, ok := r.PlannedAddress(cfg); !ok || addr.Endpoint != tt.endpoint || addr.CardURL != tt.endpoint+"/.well-known/agent-card.json" {
				t.Errorf("PlannedAddress = %+v, %v; want endpoint %q", addr, ok, tt.endpoint)
			}
			pod := r.deployment(b, 1, true, "").Spec.Template.Spec
			var secrets []string
			for _, s := range pod.ImagePullSecrets {
				secrets = append(secrets, s.Name)
			}
			if !slices.Equal(secrets, []string{"registry-a", "registry-b"}) {
				t.Errorf("image pull secrets = %v", secrets)
			}
			res := pod.Containers[0].Resources
			for what, q := range map[string]struct {
				got  resource.Quantity
				want string
			}{
				"cpu request":    {res.Requests[corev1.ResourceCPU], "100m"},
				"memory request": {res.Requests[corev1.ResourceMemory], DefaultResources.MemoryRequest},
				"cpu limit":      {res.Limits[corev1.ResourceCPU], DefaultResources.CPULimit},
				"memory limit":   {res.Limits[corev1.ResourceMemory], "512Mi"},
			} {
				if q.got.Cmp(resource.MustParse(q.want)) != 0 {
					t.Errorf("%s = %s, want %s", what, q.got.String(), q.want)
				}
			}
			args := strings.Join(pod.Containers[0].Args, " ")
			if tt.extra == "" && !strings.Contains(args, "--advertised-url "+tt.endpoint) {
				t.Errorf("the agent host is not told its advertised URL: %s", args)
			}
		})
	}
}
