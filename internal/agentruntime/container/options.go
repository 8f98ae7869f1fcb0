package container

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	containertypes "github.com/moby/moby/api/types/container"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Defaults applied to empty Options fields.
const (
	DefaultAdvertiseHost   = "127.0.0.1"
	DefaultNetwork         = "bridge"
	DefaultRestartPolicy   = string(containertypes.RestartPolicyUnlessStopped)
	DefaultUser            = "65534:65534"
	DefaultPidsLimit       = int64(512)
	DefaultStopGracePeriod = 10 * time.Second
	// DefaultScope is the scope of agents when Options names none.
	DefaultScope = "default"
)

// Options configure a Runtime; they mirror the provider block's container
// settings. An empty string, a zero duration or a nil Hardening selects the
// documented default.
type Options struct {
	// Host is the engine address: unix://, tcp:// (with TLS below or from
	// DOCKER_CERT_PATH and DOCKER_TLS_VERIFY) or ssh:// (through the docker
	// CLI, which must be on PATH and able to reach the host). Empty: DOCKER_HOST,
	// then the platform default (unix:///var/run/docker.sock). A Podman
	// socket works as well as Docker's.
	Host string
	// TLSCACert, TLSCert and TLSKey are PEM file paths for a tcp:// host.
	// When any is set they replace DOCKER_CERT_PATH.
	TLSCACert string
	TLSCert   string
	TLSKey    string
	// TLSVerify checks the engine's certificate against TLSCACert (or the
	// system roots). As with the docker CLI, TLS without it encrypts but
	// does not authenticate the engine.
	TLSVerify bool

	// BaseImage runs agents whose config names no [runtime] image. Empty:
	// an image built from Executable when absent, tagged
	// terraform-provider-a2a:<Version> (or :<content hash> for a
	// development build). A named image must already be on the engine, and
	// hold an agent host of Version.
	BaseImage string
	// Version is the provider's release: it tags the default base image,
	// which is built only from an agent host of that release, and the host
	// in every base image refuses to serve unless it is of that release.
	// Empty: the release is not checked.
	Version string
	// Executable is the agent host's static linux build, packed into the
	// default base image as its entrypoint. Empty: a2a-agent-host beside
	// this process's executable (hostexe.Beside).
	Executable string
	// StateDir is the runtime core's state dir, opened once per process:
	// its locks serialise the operations on each agent and the builds of
	// the base image, within this process and between processes; required.
	StateDir *statedir.Dir

	// AdvertiseHost is the address agent ports are published on and probed
	// at; a name other than localhost publishes on every interface.
	AdvertiseHost string
	// Network is the engine network agents join.
	Network string
	// RestartPolicy is the engine's restart policy: no, always, on-failure
	// or unless-stopped.
	RestartPolicy string
	// StopGracePeriod is how long an agent has to exit after SIGTERM.
	StopGracePeriod time.Duration
	// Hardening restricts agent containers. Nil selects DefaultHardening();
	// a non-nil value is used exactly as given, so a caller turns one
	// setting off by starting from DefaultHardening() and clearing it.
	Hardening *Hardening
	// Scope separates the agents of different provider configurations that
	// share one engine: it is a label on every container and part of its
	// name unless it is DefaultScope. Empty: DefaultScope.
	Scope string
}

// Hardening restricts what an agent container may do. Zero values mean
// "off": User "" runs the image's own user, PidsLimit 0 sets no limit,
// MemoryMB 0 and CPUs 0 set no limit.
type Hardening struct {
	ReadOnlyRootfs      bool // the root filesystem is read-only; /tmp is a tmpfs
	DropAllCapabilities bool // cap-drop ALL
	NoNewPrivileges     bool // no-new-privileges security option
	User                string
	PidsLimit           int64
	MemoryMB            int64
	CPUs                float64
}

// DefaultHardening is every restriction on, with no memory or CPU limit.
func DefaultHardening() Hardening {
	return Hardening{
		ReadOnlyRootfs:      true,
		DropAllCapabilities: true,
		NoNewPrivileges:     true,
		User:                DefaultUser,
		PidsLimit:           DefaultPidsLimit,
	}
}

// withDefaults fills empty fields and rejects values the engine would
// refuse later, all of them at once.
func (o Options) withDefaults() (Options, error) {
	if o.AdvertiseHost == "" {
		o.AdvertiseHost = DefaultAdvertiseHost
	}
	if o.Network == "" {
		o.Network = DefaultNetwork
	}
	if o.RestartPolicy == "" {
		o.RestartPolicy = DefaultRestartPolicy
	}
	if o.StopGracePeriod <= 0 {
		o.StopGracePeriod = DefaultStopGracePeriod
	}
	if o.Hardening == nil {
		h := DefaultHardening()
		o.Hardening = &h
	}
	if o.Scope == "" {
		o.Scope = DefaultScope
	}
	return o, o.check()
}

// check reports every value the engine would refuse later, or that could
// not work, each naming the provider attribute to fix.
func (o Options) check() error {
	var problems []error
	add := func(attribute string, err error) {
		if err != nil {
			problems = append(problems, fmt.Errorf("container %s: %w", attribute, err))
		}
	}
	if o.Host != "" {
		add("host", CheckHost(o.Host))
	}
	if o.BaseImage != "" {
		add("base_image", CheckImage(o.BaseImage))
	}
	if !agentruntime.ValidScope(o.Scope) {
		add("scope", fmt.Errorf("%q cannot be part of a container name: use lower case letters, digits and '-', at most 20, "+
			"starting and ending with a letter or digit", o.Scope))
	}
	add("advertise_host", CheckAdvertiseHost(o.AdvertiseHost))
	add("network", CheckNetwork(o.Network))
	// The engine's own rule, so that no policy it knows is refused here.
	policy := containertypes.RestartPolicy{Name: containertypes.RestartPolicyMode(o.RestartPolicy)}
	if err := containertypes.ValidateRestartPolicy(policy); err != nil {
		add("restart_policy", fmt.Errorf("%q: %w; use no, always, on-failure or unless-stopped", o.RestartPolicy, err))
	}
	h := o.Hardening
	add("hardening user", CheckUser(h.User))
	if h.PidsLimit < 0 {
		add("hardening pids_limit", fmt.Errorf("%d is negative; use 0 for no limit", h.PidsLimit))
	}
	switch m := h.MemoryMB; {
	case m < 0:
		add("hardening memory_mb", fmt.Errorf("%d is negative; use 0 for no limit", m))
	case m > 0 && m < MinMemoryMB:
		add("hardening memory_mb", fmt.Errorf("%d is below the engines' minimum of %d MiB; use 0 for no limit", m, MinMemoryMB))
	case m > MaxMemoryMB:
		add("hardening memory_mb", fmt.Errorf("%d MiB is more than a container can be given (at most %d)", m, MaxMemoryMB))
	}
	if h.CPUs < 0 || (h.CPUs > 0 && h.CPUs < MinCPUs) {
		add("hardening cpus", fmt.Errorf("%g is below the engines' minimum of %g cores; use 0 for no limit", h.CPUs, MinCPUs))
	}
	return errors.Join(problems...)
}

// publishAddr is the host address ports are bound on: the advertise host
// when it is an IP, loopback for localhost, otherwise every interface,
// because a DNS name cannot be bound and may only resolve on the engine's
// side.
func (o Options) publishAddr() netip.Addr {
	if o.AdvertiseHost == "localhost" {
		return netip.MustParseAddr("127.0.0.1")
	}
	if a, err := netip.ParseAddr(o.AdvertiseHost); err == nil {
		return a
	}
	return netip.IPv4Unspecified()
}

// endpoint is the base URL clients reach an agent published on port at.
func (o Options) endpoint(port int) string {
	return card.Endpoint("", o.AdvertiseHost, port)
}

// graceSeconds is the stop grace period in the whole seconds the engine
// takes, rounded up so an agent never gets less than asked for.
func (o Options) graceSeconds() int {
	return int((o.StopGracePeriod + time.Second - 1) / time.Second)
}
