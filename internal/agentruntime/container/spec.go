package container

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// The agent host listens on this port inside every container.
const containerPort = 8080

// Labels on every container this adapter creates; they are its only record.
const (
	labelManagedBy   = "a2a.managed-by"
	managedByValue   = "terraform-provider-a2a"
	labelScope       = "a2a.scope"
	labelAgentID     = "a2a.agent-id"
	labelAgentName   = "a2a.agent-name"
	labelConfigSHA   = "a2a.config-sha256"
	labelPort        = "a2a.port"
	labelInjectedEnv = "a2a.injected-env"
	// labelImage is the image as the adapter named it: engines report it
	// back differently (Podman as docker.io/library/<name>), and a
	// recreated container must carry the same reference.
	labelImage = "a2a.image"
	// labelEnvAllowlist names the allowlist the agent was provisioned with,
	// so that an imported agent reads it back.
	labelEnvAllowlist = "a2a.env-allowlist"
	// labelDeliveredEnv names the injected variables that had a value when
	// the container was created, so that a variable unset since then also
	// calls for a new container.
	labelDeliveredEnv = "a2a.delivered-env"
	// labelStarted marks a container that replaced one of an agent that had
	// run, so that it reads stopped, not provisioned, until started. It is
	// set after the spec digest, which it does not enter.
	labelStarted = "a2a.started"
	// labelSpecSHA digests everything of the container but env values, so
	// that provisioning an unchanged agent keeps its container.
	labelSpecSHA = "a2a.spec-sha256"
)

// containerName is deterministic per agent id so that the engine itself
// refuses a second container for one agent, and no two agents of any
// scopes share it.
func (r *Runtime) containerName(id string) string {
	if r.opts.Scope == DefaultScope {
		return agentruntime.ObjectName("", id)
	}
	return agentruntime.ObjectName(r.opts.Scope, id)
}

// oldContainerName is the name containers had before names told scopes
// apart, when scope "rt" with id "kube" and the default scope with id
// "rt-kube" shared one. An agent created then keeps its container until
// an operation holding its lock renames it (current).
func (r *Runtime) oldContainerName(id string) string {
	if r.opts.Scope == DefaultScope {
		return "a2a-" + id
	}
	return "a2a-" + r.opts.Scope + "-" + id
}

// blueprint is everything needed to create an agent's container.
type blueprint struct {
	cfg       *agentconfig.Config
	injected  []string // names the config may receive
	allowlist string   // name of the allowlist provisioned with; empty for none
	writeOnly []string // names of the write-only values, kept in the container's volume
	woVersion string   // the version of those values
	image     string
	port      int
}

// environment returns the container's variables: the config, the
// variables every agent is given, and the injected variables that have a
// value in this process's environment now. Nothing else of the provider's
// environment enters the container.
func (b blueprint) environment(owned launch.Owned) (env, delivered []string) {
	env = append([]string{launch.ConfigEnvVar + "=" + string(b.cfg.Raw())}, owned.Env()...)
	for _, name := range b.injected {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
			delivered = append(delivered, name)
		}
	}
	return env, delivered
}

// createOptions builds the engine request for b under the runtime's options.
func (r *Runtime) createOptions(b blueprint) (client.ContainerCreateOptions, error) {
	owned := r.variablesOf(b)
	env, delivered := b.environment(owned)
	agentPort := network.MustParsePort(strconv.Itoa(owned.Port) + "/tcp")
	cfg := &containertypes.Config{
		Image:        b.image,
		Env:          env,
		ExposedPorts: network.PortSet{agentPort: {}},
		User:         r.opts.Hardening.User,
		StopTimeout:  pointer(r.opts.graceSeconds()),
		Labels: map[string]string{
			labelManagedBy:    managedByValue,
			labelScope:        r.opts.Scope,
			labelAgentID:      b.cfg.ID(),
			labelAgentName:    b.cfg.Agent.Name,
			labelConfigSHA:    b.cfg.SHA256(),
			labelPort:         strconv.Itoa(b.port),
			labelImage:        b.image,
			labelInjectedEnv:  strings.Join(b.injected, ","),
			labelEnvAllowlist: b.allowlist,
			labelDeliveredEnv: strings.Join(delivered, ","),
		},
	}
	if b.cfg.Runtime.Brought() {
		cmd, extra, err := b.broughtProcess(owned)
		if err != nil {
			return client.ContainerCreateOptions{}, err
		}
		cfg.Cmd = cmd
		cfg.Env = append(cfg.Env, extra...)
		cfg.Labels[labelCardPaths] = strings.Join(b.cfg.Runtime.CardPaths(), ",")
	} else {
		// The built-in host: flags override the config's [server] table.
		host := launch.Host{Owned: owned, ProviderVersion: r.opts.Version}
		if len(b.writeOnly) > 0 {
			host.WriteOnlyFile = launch.WriteOnlyFilePath
		}
		cfg.Cmd = host.Args()
	}
	host := &containertypes.HostConfig{
		NetworkMode:   containertypes.NetworkMode(r.opts.Network),
		RestartPolicy: containertypes.RestartPolicy{Name: containertypes.RestartPolicyMode(r.opts.RestartPolicy)},
		PortBindings: network.PortMap{agentPort: {{
			HostIP:   r.opts.publishAddr(),
			HostPort: strconv.Itoa(b.port),
		}}},
	}
	r.harden(host)
	if len(b.writeOnly) > 0 {
		// Only then, so that agents without write-only values keep the
		// containers they had.
		cfg.Labels[labelWriteOnly] = strings.Join(b.writeOnly, ",")
		withWriteOnlyMount(host)
	}
	if b.woVersion != "" {
		// Only when set, like the names: a container made before keeps its
		// spec digest.
		cfg.Labels[labelWriteOnlyVersion] = b.woVersion
	}
	cfg.Labels[labelSpecSHA] = specDigest(cfg, host)
	cfg.Labels[labelSettings] = settingsLabel(r.settings(b.cfg, b.image))
	return client.ContainerCreateOptions{Name: r.containerName(b.cfg.ID()), Config: cfg, HostConfig: host}, nil
}

// variablesOf is what the agent of b is given: it listens on every address of
// its container, at its [runtime] port or the adapter's, and is reached at
// the config's [server] advertised_url, set for an agent behind a proxy,
// else where the engine publishes it.
func (r *Runtime) variablesOf(b blueprint) launch.Owned {
	return launch.Owned{
		Host:          launch.ListenAll,
		Port:          b.cfg.Runtime.ListenPort(containerPort),
		AdvertisedURL: card.Endpoint(b.cfg.Server.AdvertisedURL, r.opts.AdvertiseHost, b.port),
	}
}

func (r *Runtime) harden(host *containertypes.HostConfig) {
	h := r.opts.Hardening
	if h.ReadOnlyRootfs {
		host.ReadonlyRootfs = true
		host.Tmpfs = map[string]string{"/tmp": "rw,noexec,nosuid,nodev,size=64m"}
	}
	if h.DropAllCapabilities {
		host.CapDrop = []string{"ALL"}
	}
	if h.NoNewPrivileges {
		host.SecurityOpt = []string{"no-new-privileges:true"}
	}
	// No limit is asked for explicitly: Podman gives a container created
	// without one its own default limit, and -1 is unlimited for both.
	host.PidsLimit = pointer(int64(-1))
	if h.PidsLimit > 0 {
		host.PidsLimit = pointer(h.PidsLimit)
	}
	host.Memory = h.MemoryMB << 20
	host.NanoCPUs = int64(h.CPUs * 1e9)
}

// specDigest hashes the container's definition with env values left out:
// they may be secrets, and labels are readable by anyone with engine access.
func specDigest(cfg *containertypes.Config, host *containertypes.HostConfig) string {
	redacted := *cfg
	redacted.Env = nil
	redacted.Labels = nil
	data, _ := json.Marshal(struct {
		Config *containertypes.Config
		Host   *containertypes.HostConfig
		Labels map[string]string
	}{&redacted, host, cfg.Labels})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// sameEnvironment reports whether a container already holds the env values
// that creating it now would give it; a mismatch means recreating it.
func sameEnvironment(current []string, want client.ContainerCreateOptions) bool {
	for _, kv := range want.Config.Env {
		if !slices.Contains(current, kv) {
			return false
		}
	}
	return true
}

// splitList reads a comma-separated label; empty is no names.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func pointer[T any](v T) *T { return &v }
