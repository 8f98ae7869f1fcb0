package provider

import (
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Defaults of the provider block, applied when an attribute is omitted.
const (
	defaultStopGracePeriod = 10 * time.Second
	defaultAdvertiseHost   = "127.0.0.1"
	defaultNetwork         = "bridge"
	defaultRestartPolicy   = "unless-stopped"
	defaultContainerUser   = "65534:65534"
	defaultPidsLimit       = 512
)

// restartPolicies are the container restart policies engines understand.
var restartPolicies = []string{"no", "always", "unless-stopped", "on-failure"}

type providerModel struct {
	StateDir  types.String    `tfsdk:"state_dir"`
	Local     *localModel     `tfsdk:"local"`
	Container *containerModel `tfsdk:"container"`
}

type localModel struct {
	Executable      types.String `tfsdk:"executable"`
	StopGracePeriod types.String `tfsdk:"stop_grace_period"`
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

// settings is the provider block with every default applied: what the
// runtime is built from.
type settings struct {
	stateDir  string
	container *containerSettings // nil selects the local adapter
	local     localSettings
}

type localSettings struct {
	executable      string
	stopGracePeriod time.Duration
}

type containerSettings struct {
	host            string
	baseImage       string
	advertiseHost   string
	network         string
	restartPolicy   string
	stopGracePeriod time.Duration
	tlsCACert       string
	tlsCert         string
	tlsKey          string
	tlsVerify       bool
	hardening       hardeningSettings
}

type hardeningSettings struct {
	readOnlyRootfs      bool
	dropAllCapabilities bool
	noNewPrivileges     bool
	user                string
	pidsLimit           int64
	memoryMB            int64
	cpus                float64
}

// resolve applies the defaults. Every value must be known: the runtime is
// built once per Terraform command, before any resource is planned.
func (m providerModel) resolve() (settings, diag.Diagnostics) {
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
	s.local = localSettings{stopGracePeriod: defaultStopGracePeriod}
	if m.Local != nil {
		local := path.Root("local")
		if !unknown(local.AtName("executable"), m.Local.Executable) {
			s.local.executable = m.Local.Executable.ValueString()
		}
		if !unknown(local.AtName("stop_grace_period"), m.Local.StopGracePeriod) {
			s.local.stopGracePeriod = parseDuration(m.Local.StopGracePeriod.ValueString(), defaultStopGracePeriod)
		}
	}
	if s.local.executable == "" {
		exe, err := os.Executable()
		if err != nil {
			diags.AddAttributeError(path.Root("local").AtName("executable"), "Cannot find the provider executable",
				fmt.Sprintf("The agent host is the provider's own executable, which cannot be located (%v): set local.executable.", err))
		}
		s.local.executable = exe
	}
	if m.Container != nil {
		c, d := m.Container.resolve()
		diags.Append(d...)
		s.container = &c
	}
	return s, diags
}

func (m containerModel) resolve() (containerSettings, diag.Diagnostics) {
	var diags diag.Diagnostics
	root := path.Root("container")
	str := func(name string, v types.String, def string) string {
		if refuseUnknown(&diags, root.AtName(name), v) {
			return ""
		}
		if v.IsNull() || v.ValueString() == "" {
			return def
		}
		return v.ValueString()
	}
	c := containerSettings{
		host:            str("host", m.Host, ""),
		baseImage:       str("base_image", m.BaseImage, ""),
		advertiseHost:   str("advertise_host", m.AdvertiseHost, defaultAdvertiseHost),
		network:         str("network", m.Network, defaultNetwork),
		restartPolicy:   str("restart_policy", m.RestartPolicy, defaultRestartPolicy),
		tlsCACert:       str("tls_ca_cert", m.TLSCACert, ""),
		tlsCert:         str("tls_cert", m.TLSCert, ""),
		tlsKey:          str("tls_key", m.TLSKey, ""),
		stopGracePeriod: parseDuration(str("stop_grace_period", m.StopGracePeriod, ""), defaultStopGracePeriod),
		hardening: hardeningSettings{
			readOnlyRootfs: true, dropAllCapabilities: true, noNewPrivileges: true,
			user: defaultContainerUser, pidsLimit: defaultPidsLimit,
		},
	}
	if !refuseUnknown(&diags, root.AtName("tls_verify"), m.TLSVerify) {
		c.tlsVerify = m.TLSVerify.ValueBool()
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
		override := func(v types.Bool, into *bool) {
			if !v.IsNull() && !v.IsUnknown() {
				*into = v.ValueBool()
			}
		}
		override(h.ReadOnlyRootfs, &c.hardening.readOnlyRootfs)
		override(h.DropAllCapabilities, &c.hardening.dropAllCapabilities)
		override(h.NoNewPrivileges, &c.hardening.noNewPrivileges)
		if !h.User.IsNull() && !h.User.IsUnknown() {
			c.hardening.user = h.User.ValueString()
		}
		if !h.PidsLimit.IsNull() && !h.PidsLimit.IsUnknown() {
			c.hardening.pidsLimit = h.PidsLimit.ValueInt64()
		}
		c.hardening.memoryMB = h.MemoryMB.ValueInt64()
		c.hardening.cpus = h.CPUs.ValueFloat64()
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

// parseDuration reads a duration the attribute validator has already
// accepted; empty selects def.
func parseDuration(s string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(s)
	if s == "" || err != nil {
		return def
	}
	return d
}
