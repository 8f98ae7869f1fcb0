package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	containertypes "github.com/moby/moby/api/types/container"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/kube"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// hostExecutable locates the agent host: what the local adapter starts by
// default, and what the container adapter builds its base image from.
// Tests, whose binary stands in for the provider, point it at the host
// they build.
var hostExecutable = hostexe.Beside

// restartPolicies are the container restart policies engines understand,
// as the engine's API names them.
var restartPolicies = []string{
	string(containertypes.RestartPolicyDisabled), string(containertypes.RestartPolicyAlways),
	string(containertypes.RestartPolicyUnlessStopped), string(containertypes.RestartPolicyOnFailure),
}

type providerModel struct {
	StateDir   types.String     `tfsdk:"state_dir"`
	Local      *localModel      `tfsdk:"local"`
	Container  *containerModel  `tfsdk:"container"`
	Kubernetes *kubernetesModel `tfsdk:"kubernetes"`

	CardHeaderEnvAllowlist types.Map `tfsdk:"card_header_env_allowlist"`
}

type kubernetesModel struct {
	Kubeconfig       types.String        `tfsdk:"kubeconfig"`
	Context          types.String        `tfsdk:"context"`
	Namespace        types.String        `tfsdk:"namespace"`
	BaseImage        types.String        `tfsdk:"base_image"`
	ImagePullPolicy  types.String        `tfsdk:"image_pull_policy"`
	ServiceType      types.String        `tfsdk:"service_type"`
	Scope            types.String        `tfsdk:"scope"`
	StopGracePeriod  types.String        `tfsdk:"stop_grace_period"`
	ImagePullSecrets types.List          `tfsdk:"image_pull_secrets"`
	AdvertisedURL    types.String        `tfsdk:"advertised_url"`
	Replicas         types.Int64         `tfsdk:"replicas"`
	Resources        *kubeResourcesModel `tfsdk:"resources"`
	AgentDefaults    types.Object        `tfsdk:"agent_defaults"`

	AllowSystemPlacement types.Bool `tfsdk:"allow_system_placement"`
}

type kubeResourcesModel struct {
	CPURequest    types.String `tfsdk:"cpu_request"`
	MemoryRequest types.String `tfsdk:"memory_request"`
	CPULimit      types.String `tfsdk:"cpu_limit"`
	MemoryLimit   types.String `tfsdk:"memory_limit"`
}

type localModel struct {
	Executable      types.String `tfsdk:"executable"`
	StopGracePeriod types.String `tfsdk:"stop_grace_period"`
	RestartPolicy   types.String `tfsdk:"restart_policy"`
}

type containerModel struct {
	Host            types.String    `tfsdk:"host"`
	BaseImage       types.String    `tfsdk:"base_image"`
	AdvertiseHost   types.String    `tfsdk:"advertise_host"`
	Network         types.String    `tfsdk:"network"`
	RestartPolicy   types.String    `tfsdk:"restart_policy"`
	StopGracePeriod types.String    `tfsdk:"stop_grace_period"`
	TLSCACert       types.String    `tfsdk:"tls_ca_cert"`
	TLSCert         types.String    `tfsdk:"tls_cert"`
	TLSKey          types.String    `tfsdk:"tls_key"`
	TLSVerify       types.Bool      `tfsdk:"tls_verify"`
	Hardening       *hardeningModel `tfsdk:"hardening"`
}

type hardeningModel struct {
	ReadOnlyRootfs      types.Bool    `tfsdk:"read_only_rootfs"`
	DropAllCapabilities types.Bool    `tfsdk:"drop_all_capabilities"`
	NoNewPrivileges     types.Bool    `tfsdk:"no_new_privileges"`
	User                types.String  `tfsdk:"user"`
	PidsLimit           types.Int64   `tfsdk:"pids_limit"`
	MemoryMB            types.Int64   `tfsdk:"memory_mb"`
	CPUs                types.Float64 `tfsdk:"cpus"`
}

// settings is the provider block resolved into the options of the adapter
// it selects. Attributes left out stay zero, so that each adapter applies
// its own documented default in one place.
type settings struct {
	stateDir   string
	local      local.Options
	container  *container.Options // nil selects the local adapter, unless kubernetes is set
	kubernetes *kube.Options      // nil selects the local adapter, unless container is set

	// cardHeaderEnv restricts what a2a_agent_card reads from the
	// environment for its request headers.
	cardHeaderEnv headerEnvAllowlist
}

// adapter names the adapter the settings select: a block's, else local.
func (s settings) adapter() string {
	switch {
	case s.container != nil:
		return agentruntime.AdapterContainer
	case s.kubernetes != nil:
		return agentruntime.AdapterKubernetes
	}
	return agentruntime.AdapterLocal
}

// resolve reads the provider block. Every value must be known: the runtime
// is built once per Terraform command, before any resource is planned.
func (m providerModel) resolve(version string) (settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	unknown := func(p path.Path, v unknowable) bool { return refuseUnknown(&diags, p, v) }
	var s settings
	if !unknown(path.Root("state_dir"), m.StateDir) {
		s.stateDir = m.StateDir.ValueString()
	}
	if s.stateDir == "" {
		dir, err := statedir.Default()
		if err != nil {
			diags.AddAttributeError(path.Root("state_dir"), "No state directory",
				fmt.Sprintf("Cannot choose a default state directory (%v): set state_dir in the provider block or the %s environment variable.", err, statedir.EnvVar))
		}
		s.stateDir = dir
	}
	s.cardHeaderEnv = resolveHeaderEnvAllowlist(&diags, m.CardHeaderEnvAllowlist)
	if m.Local != nil {
		block := path.Root("local")
		if !unknown(block.AtName("executable"), m.Local.Executable) {
			s.local.Executable = m.Local.Executable.ValueString()
		}
		if !unknown(block.AtName("stop_grace_period"), m.Local.StopGracePeriod) {
			s.local.StopGracePeriod = parseDuration(m.Local.StopGracePeriod.ValueString())
		}
		if !unknown(block.AtName("restart_policy"), m.Local.RestartPolicy) {
			s.local.RestartPolicy = m.Local.RestartPolicy.ValueString()
		}
	}
	if s.local.Executable == "" {
		exe, err := hostExecutable()
		if err != nil {
			diags.AddAttributeError(path.Root("local").AtName("executable"), "Cannot find the agent host",
				fmt.Sprintf("The agent host lies beside the provider's executable, which cannot be located (%v): set local.executable.", err))
		}
		s.local.Executable = exe
	}
	s.local.Version = version
	if m.Container != nil {
		c, d := m.Container.resolve()
		diags.Append(d...)
		c.Version, c.Executable = version, s.local.Executable
		s.container = &c
	}
	if m.Kubernetes != nil {
		k, d := m.Kubernetes.resolve()
		diags.Append(d...)
		k.Version = version
		s.kubernetes = &k
	}
	return s, diags
}

func (m kubernetesModel) resolve() (kube.Options, diag.Diagnostics) {
	var diags diag.Diagnostics
	root := path.Root("kubernetes")
	str := settingReader(&diags, root)
	k := kube.Options{
		Kubeconfig:      str("kubeconfig", m.Kubeconfig),
		Context:         str("context", m.Context),
		Namespace:       str("namespace", m.Namespace),
		BaseImage:       str("base_image", m.BaseImage),
		PullPolicy:      str("image_pull_policy", m.ImagePullPolicy),
		ServiceType:     str("service_type", m.ServiceType),
		Scope:           str("scope", m.Scope),
		StopGracePeriod: parseDuration(str("stop_grace_period", m.StopGracePeriod)),
		AdvertisedURL:   str("advertised_url", m.AdvertisedURL),
	}
	if !refuseUnknown(&diags, root.AtName("replicas"), m.Replicas) {
		k.Replicas = int(m.Replicas.ValueInt64())
	}
	if !refuseUnknown(&diags, root.AtName("image_pull_secrets"), m.ImagePullSecrets) {
		for i, v := range m.ImagePullSecrets.Elements() {
			if name, ok := v.(types.String); ok && !refuseUnknown(&diags, root.AtName("image_pull_secrets").AtListIndex(i), name) {
				k.ImagePullSecrets = append(k.ImagePullSecrets, name.ValueString())
			}
		}
	}
	if r := m.Resources; r != nil {
		str := settingReader(&diags, root.AtName("resources"))
		k.Resources = kube.Resources{
			CPURequest: str("cpu_request", r.CPURequest), MemoryRequest: str("memory_request", r.MemoryRequest),
			CPULimit: str("cpu_limit", r.CPULimit), MemoryLimit: str("memory_limit", r.MemoryLimit),
		}
	}
	if !refuseUnknown(&diags, root.AtName("allow_system_placement"), m.AllowSystemPlacement) {
		k.AllowSystemPlacement = m.AllowSystemPlacement.ValueBool()
	}
	k.Workload = m.agentDefaults(&diags, root.AtName("agent_defaults"), k.AllowSystemPlacement)
	if k.BaseImage == "" && !m.BaseImage.IsUnknown() {
		diags.AddAttributeError(root.AtName("base_image"), "No base image",
			"Agents on Kubernetes run a base image, which the cluster pulls or already has: set base_image to it "+
				"(an image whose entrypoint is the a2a-agent-host of the provider's release, from its release archive).")
	}
	return k, diags
}

// agentDefaults reads agent_defaults, at at, refusing what no agent could
// run with, or what only allowSystemPlacement lets agents run with, at the
// attribute it is about.
func (m kubernetesModel) agentDefaults(diags *diag.Diagnostics, at path.Path, allowSystemPlacement bool) agentruntime.Workload {
	if m.AgentDefaults.IsNull() {
		return agentruntime.Workload{}
	}
	if !fullyKnown(m.AgentDefaults) {
		diags.AddAttributeError(at, "Agent defaults not known", "kubernetes.agent_defaults must be known when the provider is "+
			"configured: it may not depend on a resource that this plan creates.")
		return agentruntime.Workload{}
	}
	w, d := workloadOf(context.Background(), m.AgentDefaults)
	diags.Append(d...)
	for _, p := range kube.CheckDefaults(w, allowSystemPlacement) {
		diags.AddAttributeError(problemPath(at, p), "Invalid agent default", fmt.Sprintf("kubernetes.agent_defaults.%s: %s", problemName(p), p.Message))
	}
	return w
}

func (m containerModel) resolve() (container.Options, diag.Diagnostics) {
	var diags diag.Diagnostics
	root := path.Root("container")
	str := settingReader(&diags, root)
	c := container.Options{
		Host:            str("host", m.Host),
		BaseImage:       str("base_image", m.BaseImage),
		AdvertiseHost:   str("advertise_host", m.AdvertiseHost),
		Network:         str("network", m.Network),
		RestartPolicy:   str("restart_policy", m.RestartPolicy),
		TLSCACert:       str("tls_ca_cert", m.TLSCACert),
		TLSCert:         str("tls_cert", m.TLSCert),
		TLSKey:          str("tls_key", m.TLSKey),
		StopGracePeriod: parseDuration(str("stop_grace_period", m.StopGracePeriod)),
	}
	if !refuseUnknown(&diags, root.AtName("tls_verify"), m.TLSVerify) {
		c.TLSVerify = m.TLSVerify.ValueBool()
	}
	if h := m.Hardening; h != nil {
		hp := root.AtName("hardening")
		for name, v := range map[string]unknowable{
			"read_only_rootfs": h.ReadOnlyRootfs, "drop_all_capabilities": h.DropAllCapabilities,
			"no_new_privileges": h.NoNewPrivileges, "user": h.User, "pids_limit": h.PidsLimit,
			"memory_mb": h.MemoryMB, "cpus": h.CPUs,
		} {
			refuseUnknown(&diags, hp.AtName(name), v)
		}
		// The adapter takes a hardening block exactly as given, so the
		// attributes left out keep its defaults.
		hardening := container.DefaultHardening()
		override := func(v types.Bool, into *bool) {
			if !v.IsNull() && !v.IsUnknown() {
				*into = v.ValueBool()
			}
		}
		override(h.ReadOnlyRootfs, &hardening.ReadOnlyRootfs)
		override(h.DropAllCapabilities, &hardening.DropAllCapabilities)
		override(h.NoNewPrivileges, &hardening.NoNewPrivileges)
		if !h.User.IsNull() && !h.User.IsUnknown() {
			hardening.User = h.User.ValueString()
		}
		if !h.PidsLimit.IsNull() && !h.PidsLimit.IsUnknown() {
			hardening.PidsLimit = h.PidsLimit.ValueInt64()
		}
		hardening.MemoryMB = h.MemoryMB.ValueInt64()
		hardening.CPUs = h.CPUs.ValueFloat64()
		c.Hardening = &hardening
	}
	return c, diags
}

type unknowable interface{ IsUnknown() bool }

// refuseUnknown reports a provider setting that is not known yet: the
// runtime is built before any resource is planned, so it cannot wait.
func refuseUnknown(diags *diag.Diagnostics, p path.Path, v unknowable) bool {
	if !v.IsUnknown() {
		return false
	}
	diags.AddAttributeError(p, "Provider setting not known at plan time",
		"The provider needs this value before it can plan any agent: set it from a variable or a literal, not from a resource attribute.")
	return true
}

// settingReader reads the string attributes of the block at root, refusing
// each one not known at plan time.
func settingReader(diags *diag.Diagnostics, root path.Path) func(name string, v types.String) string {
	return func(name string, v types.String) string {
		if refuseUnknown(diags, root.AtName(name), v) {
			return ""
		}
		return v.ValueString()
	}
}

// parseDuration reads a duration the attribute validator has already
// accepted; empty is zero, which selects the adapter's default.
func parseDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}
