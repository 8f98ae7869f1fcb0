// Package provider is the Terraform surface of the A2A provider. It
// translates between Terraform and the runtime port and holds no process or
// engine logic of its own.
package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/kube"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/a2a-terraform/a2a"

// New returns a constructor of the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &a2aProvider{version: version, connect: connect} }
}

type a2aProvider struct {
	version string
	connect connectFunc
}

var _ provider.ProviderWithConfigValidators = (*a2aProvider)(nil)

func (p *a2aProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "a2a"
	resp.Version = p.version
}

func (p *a2aProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs [A2A](https://a2a-protocol.org) agents as supervised local processes (`local`), as " +
			"containers on a Docker or Podman engine (`container`) or as Deployments on a Kubernetes cluster " +
			"(`kubernetes`). Agents outlive Terraform: the provider records them in its state directory (or labels " +
			"them on the engine or in the cluster) and finds them again on every run.",
		Attributes: map[string]schema.Attribute{
			"state_dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Directory where the runtime keeps its durable records, env allowlists and agent logs. " +
					"Default: `$" + statedir.EnvVar + "`, else `$XDG_STATE_HOME/terraform-provider-a2a`, " +
					"else `~/.local/state/terraform-provider-a2a`. Two configurations that share a state dir share its agents. " +
					"Must not be empty: leave it out to use the default.",
				Validators: []validator.String{notEmptyValidator("the default state directory ($" + statedir.EnvVar +
					", else $XDG_STATE_HOME/terraform-provider-a2a, else ~/.local/state/terraform-provider-a2a)")},
			},
			"card_header_env_allowlist": cardHeaderEnvAllowlistAttribute(),
		},
		Blocks: map[string]schema.Block{
			"local":      localBlock(),
			"container":  containerBlock(),
			"kubernetes": kubernetesBlock(),
		},
	}
}

func localBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Runs each agent as a detached operating-system process under a supervisor of its own, which " +
			"outlives Terraform and restarts the agent under `restart_policy` when it exits; both are recorded in the state directory. " +
			"This is the adapter used when the provider block has no adapter block.\n\n  " +
			"It is for your own agents: every agent runs " +
			"as the user running Terraform and can read what that user can, the other agents' values in the state directory " +
			"and the whole environment of a running `terraform` (`/proc/<pid>/environ`) included, whatever its allowlist says. " +
			"Run agents you do not trust with `container` or `kubernetes`.",
		Attributes: map[string]schema.Attribute{
			"executable": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Agent host executable, run as `<executable> --config <file>`. It must be of the provider's " +
					"release (`<executable> version` says which), or agents are not started. " +
					"Default: `a2a-agent-host` beside the provider's executable, where the provider's release archive has it.",
			},
			"stop_grace_period": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How long an agent may take to exit after SIGTERM before it is killed, as a duration such as `\"10s\"`. " +
					defaultIs(local.DefaultStopGracePeriod.String()),
				Validators: []validator.String{durationValidator()},
			},
			"restart_policy": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "When an agent's supervisor restarts it after it exits on its own, as on the `container` adapter: " +
					"`no` (never), `on-failure` (after a non-zero exit or a signal), `always` or `unless-stopped` (after any exit; " +
					"the two are one here, as nothing restarts local agents after a reboot). A stop by Terraform is never undone.\n\n  " +
					fmt.Sprintf("Restarts wait %s, then twice as long each time, up to %s; after %d restarts in a row (none running %s) "+
						"the agent is left stopped, and a refresh warns with its last log lines. A change reaches a running agent at its next start. ",
						local.DefaultBackoff.Initial, local.DefaultBackoff.Max, local.DefaultBackoff.Limit, local.DefaultBackoff.Stable) +
					defaultIs(local.DefaultRestartPolicy),
				Validators: []validator.String{stringvalidator.OneOf(local.RestartPolicies...)},
			},
		},
	}
}

func containerBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Runs each agent as a container on a Docker or Podman engine, local or remote. Conflicts with `local`.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Engine address: `unix:///path/to/socket`, `tcp://host:port` (with the TLS settings below), " +
					"`ssh://[user@]host[:port]` or `npipe:////./pipe/name`. Default: `$DOCKER_HOST`, then the platform default. " +
					"A Podman socket works as well. Checked at plan without contacting the engine.",
				Validators: []validator.String{engineHostValidator()},
			},
			"base_image": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Image that runs agents whose config names no `[runtime] image`. It is never pulled: " +
					"put it on the engine first (`docker pull`, `docker load -i <archive>`, or `docker build -t <image> <directory>` " +
					"against that engine); plan fails, naming it, while the engine lacks it, or while its `a2a.host-release` label " +
					"names another release than the provider's.\n\n  " +
					"Default: an image built from the agent host (`a2a-agent-host` beside " +
					"the provider's executable) when absent, `terraform-provider-a2a:<version>` (`terraform-provider-a2a:dev-<digest>` " +
					"for a build from source); no registry is needed. The images it builds stay on the engine after `terraform destroy`: " +
					"[Base images](#base-images) says how to remove them.",
				Validators: []validator.String{imageValidator()},
			},
			"advertise_host": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Host name or IP address that agent ports are published on and probed at. " + defaultIs(container.DefaultAdvertiseHost),
				Validators:          []validator.String{advertiseHostValidator()},
			},
			"network": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Engine network the agents join: letters, digits, `_`, `.` and `-`, starting with a letter or digit. " +
					"Not `host` or `none`, which publish no ports. " + defaultIs(container.DefaultNetwork),
				Validators: []validator.String{
					stringvalidator.RegexMatches(container.NetworkNamePattern,
						"must be a network name: letters, digits, '_', '.' and '-', starting with a letter or digit"),
					stringvalidator.NoneOf(container.UnpublishedNetworks...),
				},
			},
			"restart_policy": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Engine restart policy: `no`, `always`, `unless-stopped` or `on-failure`. " + defaultIs(container.DefaultRestartPolicy),
				Validators:          []validator.String{stringvalidator.OneOf(restartPolicies...)},
			},
			"stop_grace_period": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How long an agent container may take to exit after SIGTERM, as a duration such as `\"10s\"`. " +
					defaultIs(container.DefaultStopGracePeriod.String()),
				Validators: []validator.String{durationValidator()},
			},
			"tls_ca_cert": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of the PEM CA certificate that signs a `tcp://` engine's certificate. Replaces `$DOCKER_CERT_PATH` when any TLS path is set.",
			},
			"tls_cert": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of the PEM client certificate presented to a `tcp://` engine.",
			},
			"tls_key": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of the PEM private key of `tls_cert`.",
			},
			"tls_verify": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Verify the engine's certificate against `tls_ca_cert` (or the system roots). Default: `false`, as with the docker CLI.",
			},
		},
		Blocks: map[string]schema.Block{"hardening": hardeningBlock()},
	}
}

func kubernetesBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Runs each agent on a Kubernetes cluster: a Deployment of hardened pods, a Service, a ConfigMap " +
			"holding its config and a Secret holding its write-only and allowlisted values. The provider reaches the cluster " +
			"through its API server alone. Conflicts with `local` and `container`.",
		Attributes: map[string]schema.Attribute{
			"kubeconfig": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Path of the kubeconfig file. Default: the files `$KUBECONFIG` lists, then `~/.kube/config`, as kubectl reads them.",
			},
			"context": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Kubeconfig context to use. Default: the kubeconfig's current context.",
			},
			"namespace": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Namespace that holds the agents' objects; it must exist. " + defaultIs(kube.DefaultNamespace),
				Validators:          []validator.String{errorValidator("Invalid namespace", kube.ValidateNamespace)},
			},
			"base_image": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Image agents run unless their config names a `[runtime] image`: one whose entrypoint is " +
					"the agent host (`a2a-agent-host`) of the provider's release, from its release archive, which the cluster can pull " +
					"or already has. Required.",
				Validators: []validator.String{notEmptyValidator("no image at all: base_image is required")},
			},
			"image_pull_policy": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "When the cluster pulls `base_image`: `Always`, `IfNotPresent` or `Never`. " + defaultIs(kube.DefaultPullPolicy),
				Validators:          []validator.String{stringvalidator.OneOf(kube.PullPolicies...)},
			},
			"service_type": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Type of each agent's Service: `ClusterIP`, `NodePort` or `LoadBalancer`. " + defaultIs(kube.DefaultServiceType),
				Validators:          []validator.String{stringvalidator.OneOf(kube.ServiceTypes...)},
			},
			"scope": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Label that separates the agents of configurations sharing one namespace; part of every object's name " +
					"unless it is the default. " + defaultIs(kube.DefaultScope),
				Validators: []validator.String{errorValidator("Invalid scope", kube.ValidateScope)},
			},
			"stop_grace_period": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How long an agent's pod may take to exit after SIGTERM, as a duration such as `\"10s\"`. " +
					defaultIs(kube.DefaultStopGracePeriod.String()),
				Validators: []validator.String{durationValidator()},
			},
			"image_pull_secrets": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Names of Secrets in the namespace (of type `kubernetes.io/dockerconfigjson`) that the cluster " +
					"pulls `base_image` with, when its registry asks for credentials. Default: none.",
				Validators: []validator.List{
					listvalidator.ValueStringsAre(errorValidator("Invalid image pull secret", kube.ValidatePullSecret)),
					listvalidator.UniqueValues(),
				},
			},
			"advertised_url": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The URL each agent advertises (its `endpoint`, and its card's URL under it), as a template " +
					"in which `{id}` is the agent id, `{namespace}` the namespace and `{scope}` the scope, such as `\"https://{id}.agents.example.com\"` " +
					"for the host an Ingress routes to the agent's Service. It must contain `{id}`, so that no two agents share a URL, " +
					"and be an absolute `http` or `https` URL; providers sharing one template tell their agents apart with `{namespace}` or `{scope}`. " +
					"An agent config's own `[server] advertised_url` wins.\n\n  " +
					"A new template moves the agents it gives another URL: the plan " +
					"shows their new `endpoint`, and apply restarts them. " +
					"Default: the Service's name in the cluster, `http://<service>.<namespace>.svc.cluster.local:<port>`.",
				Validators: []validator.String{errorValidator("Invalid advertised URL", kube.ValidateAdvertisedURL)},
			},
			"replicas": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "How many pods an agent runs when its `a2a_agent` sets no `replicas`. Changing it scales those " +
					fmt.Sprintf("agents in place. Default: `%d`.", kube.DefaultReplicas),
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"agent_defaults": agentDefaultsSchema(),
			"allow_system_placement": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Lets agents' `kubernetes` settings (their own and `agent_defaults`) name the priority classes " +
					"Kubernetes reserves for itself (`priority_class` beginning with `system-`, such as `system-node-critical`) and place " +
					"pods on the control-plane nodes: tolerate the `node-role.kubernetes.io/control-plane` (or `master`, `controlplane`, " +
					"`etcd`) taint, tolerate every taint (a toleration with `operator = \"Exists\"` and no key), or select those " +
					"`node_selector` labels. Without it each of these is refused at plan, at its attribute. Default: `false`: an agent " +
					"is no part of the cluster's own machinery, and a system priority class lets its pods preempt any other.",
			},
		},
		Blocks: map[string]schema.Block{"resources": kubeResourcesBlock()},
	}
}

// kubeResourceSettings are the attributes of the kubernetes resources
// block: what they set, and their defaults.
var kubeResourceSettings = []struct{ name, resource, kind, doc, def string }{
	{"cpu_request", "cpu", "request", "CPU each agent container requests, in cores such as `\"250m\"` or `\"0.5\"`; at most `cpu_limit`.",
		kube.DefaultResources.CPURequest},
	{"memory_request", "memory", "request", "Memory each agent container requests, in bytes such as `\"64Mi\"` or `\"1Gi\"`; at most `memory_limit`.",
		kube.DefaultResources.MemoryRequest},
	{"cpu_limit", "cpu", "limit", "Most CPU each agent container may use, in cores such as `\"1\"` or `\"500m\"`.",
		kube.DefaultResources.CPULimit},
	{"memory_limit", "memory", "limit", "Most memory each agent container may use, in bytes such as `\"512Mi\"`; a pod that uses more is restarted.",
		kube.DefaultResources.MemoryLimit},
}

func kubeResourcesBlock() schema.Block {
	attrs := map[string]schema.Attribute{}
	for _, s := range kubeResourceSettings {
		attrs[s.name] = schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: s.doc + " " + defaultIs(s.def),
			Validators:          []validator.String{resourceValidator(s.resource, s.kind)},
		}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Resource requests and limits of every agent container, as Kubernetes quantities. A change reaches " +
			"an agent when it is next provisioned (when its config or replicas change).",
		Attributes: attrs,
	}
}

func hardeningBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Restrictions on agent containers. Every restriction is on by default; memory and CPU limits are opt-in.",
		Attributes: map[string]schema.Attribute{
			"read_only_rootfs": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Mount the root filesystem read-only, with a tmpfs at `/tmp`. Default: `true`.",
			},
			"drop_all_capabilities": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Drop every Linux capability. Default: `true`.",
			},
			"no_new_privileges": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Forbid gaining privileges through setuid binaries. Default: `true`.",
			},
			"user": schema.StringAttribute{
				Optional: true, MarkdownDescription: "User the agent runs as: a uid or user name, optionally followed by `:` and a gid or group name; " +
					"empty runs the image's own user. " + defaultIs(container.DefaultUser),
				Validators: []validator.String{stringvalidator.RegexMatches(container.UserPattern,
					`must be a uid or user name, optionally followed by ":" and a gid or group name, such as "65534:65534" or "nobody"`)},
			},
			"pids_limit": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("Most processes a container may run; `0` sets no limit. Default: `%d`.", container.DefaultPidsLimit),
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"memory_mb": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("Memory limit in MiB, at least %d (the engines' minimum); unset or `0` sets no limit.", container.MinMemoryMB),
				// 0, or within what the engines take.
				Validators: []validator.Int64{int64validator.Any(
					int64validator.OneOf(0),
					int64validator.All(int64validator.AtLeast(container.MinMemoryMB), int64validator.AtMost(container.MaxMemoryMB)),
				)},
			},
			"cpus": schema.Float64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("CPU limit in cores, such as `0.5`, at least %g (the engines' minimum) and at most "+
					"the engine host's cores; unset or `0` sets no limit.", container.MinCPUs),
				Validators: []validator.Float64{float64validator.Any(float64validator.OneOf(0), float64validator.AtLeast(container.MinCPUs))},
			},
		},
	}
}

// defaultIs documents a string attribute's default, which the adapters own.
func defaultIs(value string) string { return fmt.Sprintf("Default: `%q`.", value) }

func (p *a2aProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{
		providervalidator.Conflicting(path.MatchRoot("local"), path.MatchRoot("container"), path.MatchRoot("kubernetes")),
	}
}

func (p *a2aProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, diags := model.resolve(p.version)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	adapter := s.adapter()
	ctx = tflog.SetField(ctx, "state_dir", s.stateDir)
	ctx = tflog.SetField(ctx, "adapter", adapter)
	deps, err := p.connect(ctx, s)
	if err != nil {
		resp.Diagnostics.AddError("Cannot start the "+adapter+" runtime", err.Error())
		return
	}
	resp.Diagnostics.Append(recoverAgents(ctx, deps.runtime)...)
	deps.cardHeaderEnv = s.cardHeaderEnv
	resp.ResourceData = deps
	resp.DataSourceData = deps
	resp.ListResourceData = deps
	resp.ActionData = deps
}

func (p *a2aProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newIdentifiedAgent, newIdentifiedEnvAllowlist}
}

func (p *a2aProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{NewAgentCardDataSource}
}
