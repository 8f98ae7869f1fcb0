// Package container is the runtime adapter that runs agents as containers
// on a Docker or Podman engine, local or remote.
//
// The engine is the only record: every container carries labels (agent id,
// name, config digest, published port, injected variable names) and a name
// derived from the agent id, so a new provider process adopts what earlier
// ones created. Provision creates the container without starting it; the
// config reaches it through the A2A_AGENT_CONFIG variable, so nothing of
// this machine is mounted. Injected variables take their values from the
// provider's environment when the container is created; because the engine
// fixes a container's environment at creation, a Start that finds those
// values changed recreates the container (same name, port and config)
// before starting it.
package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

// Runtime runs agents as containers. It is safe for concurrent use, and
// several provider processes may share one engine.
type Runtime struct {
	opts   Options
	engine engineAddress
	cli    *client.Client

	digestOnce sync.Once
	digest     string
	digestErr  error
}

var _ agentruntime.Runtime = (*Runtime)(nil)

// New connects to the engine opts name and checks that it answers.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, "configure container runtime", "", err)
	}
	if o.StateDir == nil {
		return nil, errors.New("container runtime: no state dir; open one with statedir.Open and pass it in Options.StateDir")
	}
	if o.Executable == "" && o.BaseImage == "" {
		exe, err := hostexe.Beside()
		if err != nil {
			return nil, fmt.Errorf("find the agent host to build the agent image from (or set base_image): %w", err)
		}
		o.Executable = exe
	}
	addr := chooseEngine(o)
	ping := &pingAnswer{}
	cli, err := connect(o, addr, ping)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, "configure container runtime", "", err)
	}
	r := &Runtime{opts: o, engine: addr, cli: cli}
	_, err = cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	// Checked before the ping's error: something other than an engine may
	// answer 200 (the ping then succeeds) or 404 (read as "not found").
	if answer := ping.notEngine(); answer != "" {
		_ = cli.Close()
		return nil, agentruntime.Errorf(agentruntime.KindBackend, "connect to container engine", "", nil,
			"%s is not a Docker or Podman engine API: %s. Point that setting at the engine's socket or API address, "+
				"such as unix:///var/run/docker.sock, tcp://host:2376 or ssh://user@host", addr, answer)
	}
	if err != nil {
		_ = cli.Close()
		return nil, r.engineError("connect to container engine", "", err)
	}
	return r, nil
}

// Identity names the engine and the scope the agents live in.
func (r *Runtime) Identity() agentruntime.Identity {
	return agentruntime.Identity{Adapter: agentruntime.AdapterContainer, Engine: r.engine.Host, Scope: r.opts.Scope}
}

// Close releases the engine connections. Agents keep running.
func (r *Runtime) Close() error { return r.cli.Close() }

// Check applies every check Provision makes of the spec itself, and finds
// the provider's base_image on the engine for an agent that runs it: that
// image is never pulled, so a missing one fails at plan.
func (r *Runtime) Check(ctx context.Context, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := prepare(spec)
	if err != nil {
		return agentruntime.Prepared{}, err
	}
	if r.opts.BaseImage != "" && p.Config.Runtime.Image == "" {
		if err := r.requireBaseImage(ctx); err != nil {
			return agentruntime.Prepared{}, err
		}
	}
	return p, nil
}

func prepare(spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := agentruntime.Prepare(spec)
	if err == nil {
		err = agentruntime.CheckImageAgent(p.Config, agentruntime.AdapterContainer)
	}
	if err == nil {
		err = agentruntime.RefuseWorkload("provision", p.ID, spec)
	}
	if err != nil {
		return agentruntime.Prepared{}, err
	}
	return p, nil
}

// Provision creates the agent's container, not started. An agent that
// exists keeps its port; its container is replaced when anything of it
// changed, which stops the agent until the caller starts it again. With
// spec.CreateOnly an agent that exists is refused instead.
func (r *Runtime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	if err := agentruntime.RequireKnownAllowlist("provision", spec); err != nil {
		return agentruntime.Agent{}, err
	}
	p, err := prepare(spec)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	id := p.ID
	lock, err := r.lock(ctx, id)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	defer lock.Unlock()

	existing, err := r.current(ctx, "provision", id)
	if err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return agentruntime.Agent{}, err
	}
	b := blueprint{cfg: p.Config, injected: p.InjectedEnv, writeOnly: p.WriteOnly, woVersion: p.WriteOnlyVersion, allowlist: p.Allowlist}
	var made *creation
	if spec.CreateOnly {
		made = &creation{ConfigSHA256: p.Digest, EnvAllowlist: p.Allowlist}
		if existing != nil && !r.takenOverBy(ctx, id, *made) {
			return agentruntime.Agent{}, agentruntime.ExistsError("provision", id)
		}
		if err := r.opts.StateDir.HoldCreator(ctx, r.creatorKey(id)); err != nil {
			return agentruntime.Agent{}, agentruntime.Wrap(agentruntime.KindBackend, "provision", id, err)
		}
	}
	if b.image, err = r.imageFor(ctx, p.Config); err != nil {
		return agentruntime.Agent{}, err
	}
	if b.port, err = r.portFor(ctx, p, existing); err != nil {
		return agentruntime.Agent{}, err
	}
	want, err := r.createOptions(b)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	fill := func(containerID string) error {
		if len(spec.WriteOnly) == 0 {
			return nil
		}
		return r.putWriteOnly(ctx, "provision", id, containerID, spec.WriteOnly)
	}
	if err := r.writeIntent("provision", id, intent{Port: b.port, Creation: made}); err != nil {
		return agentruntime.Agent{}, err
	}
	if made == nil {
		// Provisioned again by its owner: claimed.
		r.opts.StateDir.ReleaseCreator(ctx, r.creatorKey(id))
	}
	crashpoint.Hit("container-provision-intended")
	var created string
	switch {
	case existing == nil:
		// A container removed behind the adapter's back left its volume,
		// and the values in it.
		if err := r.removeOrphanedVolumes(ctx, "provision", id); err != nil {
			return agentruntime.Agent{}, err
		}
		created, err = r.create(ctx, "provision", id, want)
		if spec.CreateOnly && agentruntime.IsKind(err, agentruntime.KindConflict) {
			// Another process created the agent since the inspect: the
			// engine's unique names let only one creation through.
			return agentruntime.Agent{}, agentruntime.ExistsError("provision", id)
		}
		if err == nil {
			if err = fill(created); err != nil {
				err = errors.Join(err, r.remove(ctx, "provision", id, created))
			}
		}
	case unchanged(existing, want):
		// The values may have changed: the caller restarts the agent.
		if err := fill(existing.ID); err != nil {
			return agentruntime.Agent{}, err
		}
		return r.agent(ctx, existing), nil
	default:
		created, err = r.replace(ctx, "provision", id, existing, want, fill)
	}
	if err != nil {
		return agentruntime.Agent{}, err
	}
	return r.agent(ctx, &containertypes.InspectResponse{
		ID: created, Config: want.Config, State: &containertypes.State{Status: containertypes.StateCreated},
	}), nil
}

func (r *Runtime) imageFor(ctx context.Context, cfg *agentconfig.Config) (string, error) {
	if img := cfg.Runtime.Image; img != "" {
		return img, r.ensureImage(ctx, img, cfg.Runtime.PullPolicy(), fmt.Sprintf("[runtime] image of agent %q", cfg.ID()))
	}
	return r.BaseImage(ctx)
}

// portFor is the port the config fixes, else the port the agent was given
// before (by its container, or by its intent file when the container is
// gone and the port free), else the preferred port when free, else a newly
// allocated one.
func (r *Runtime) portFor(ctx context.Context, p agentruntime.Prepared, existing *containertypes.InspectResponse) (int, error) {
	if p.FixedPort > 0 {
		return p.FixedPort, nil
	}
	id, preferred := p.ID, p.PreferredPort
	if existing != nil {
		if kept, err := strconv.Atoi(existing.Config.Labels[labelPort]); err == nil {
			return kept, nil
		}
	} else if in := r.readIntent(id); in != nil && r.claimPort(ctx, id, in.Port) {
		return in.Port, nil
	} else if preferred > 0 && r.claimPort(ctx, id, preferred) {
		return preferred, nil
	}
	return r.allocatePort(ctx, id)
}

func unchanged(existing *containertypes.InspectResponse, want client.ContainerCreateOptions) bool {
	return existing.Config.Labels[labelSpecSHA] == want.Config.Labels[labelSpecSHA] &&
		sameEnvironment(existing.Config.Env, want)
}

// Start starts the agent's container, first recreating it when the
// provider's environment or options changed since it was created.
func (r *Runtime) Start(ctx context.Context, id string) error {
	const op = "start"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	c, err := r.current(ctx, op, id)
	if err != nil {
		return err
	}
	switch {
	case restarting(c):
		// The engine keeps restarting an agent that exits; it stops here so
		// that it starts afresh, in a new container if anything changed.
		if err := r.stop(ctx, op, id); err != nil {
			return err
		}
	case c.State.Running:
		return agentruntime.Errorf(agentruntime.KindAlreadyRunning, op, id, nil, "the agent is already running (container %s)", shortID(c.ID))
	}
	containerID := c.ID
	want, err := r.recreateOptions(c)
	if err != nil {
		return err
	}
	// A container a replace cut short left aside may still hold the port.
	if err := r.removeAside(ctx, op, id); err != nil {
		return err
	}
	if !unchanged(c, want) || !connected(c) {
		// The runtime was not given the values again: the new container
		// takes them from the old one.
		carry := func(created string) error {
			if c.Config.Labels[labelWriteOnly] == "" {
				return nil
			}
			return r.carryWriteOnly(ctx, op, id, c.ID, created)
		}
		if containerID, err = r.replace(ctx, op, id, c, want, carry); err != nil {
			return err
		}
	}
	if _, err := r.cli.ContainerStart(ctx, containerID, client.ContainerStartOptions{}); err != nil {
		if isPortTaken(err) {
			return agentruntime.Errorf(agentruntime.KindConflict, op, id, err,
				"host port %s on %s is taken by another process: free it, or give the agent another [server] http_port, then apply again",
				want.Config.Labels[labelPort], r.opts.AdvertiseHost)
		}
		if cerrdefs.IsNotFound(err) {
			// The container was found just now, under the agent's lock: what
			// the engine lacks is something the container needs. Docker
			// looks the network up only here, not at create.
			return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id,
				fmt.Errorf("%w; when that is network %q, create it on the engine or set the provider's container network to one that exists, then apply again", err, r.opts.Network),
				"the engine at %s refused to start the agent's container", r.engine.Host)
		}
		return r.engineError(op, id, err)
	}
	return nil
}

// recreateOptions rebuilds the create request of an existing container
// from its own record: the config in its environment and its labels.
func (r *Runtime) recreateOptions(c *containertypes.InspectResponse) (client.ContainerCreateOptions, error) {
	id := c.Config.Labels[labelAgentID]
	raw, ok := envValue(c.Config.Env, launch.ConfigEnvVar)
	port, perr := strconv.Atoi(c.Config.Labels[labelPort])
	image := c.Config.Labels[labelImage]
	cfg, err := agentconfig.Parse([]byte(raw))
	if !ok || perr != nil || err != nil || image == "" {
		return client.ContainerCreateOptions{}, agentruntime.Errorf(agentruntime.KindBackend, "start", id, errors.Join(perr, err),
			"container %s lacks a usable agent config, port label or image label (was it changed outside Terraform?); apply again to recreate it", shortID(c.ID))
	}
	b := blueprint{cfg: cfg, injected: splitList(c.Config.Labels[labelInjectedEnv]),
		allowlist: c.Config.Labels[labelEnvAllowlist], writeOnly: splitList(c.Config.Labels[labelWriteOnly]),
		woVersion: c.Config.Labels[labelWriteOnlyVersion], image: image, port: port}
	return r.createOptions(b)
}

func envValue(env []string, name string) (string, bool) {
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// Stop stops the container within the grace period; a stopped agent is
// success.
func (r *Runtime) Stop(ctx context.Context, id string) error {
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return r.stop(ctx, "stop", id)
}

// stop stops the agent's container, never another one of its name.
func (r *Runtime) stop(ctx context.Context, op, id string) error {
	c, err := r.current(ctx, op, id)
	if err != nil {
		return err
	}
	return r.stopContainer(ctx, op, id, c.ID)
}

// Get returns the agent as the engine sees it, with its health.
func (r *Runtime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	c, err := r.inspect(ctx, "get", id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return agentruntime.Agent{}, r.goneContainer(id, err)
	}
	if err != nil {
		return agentruntime.Agent{}, err
	}
	a := r.agent(ctx, c)
	if in := r.intentOf(id, c); in != nil && in.Creation != nil {
		a.Unclaimed = true
	}
	return a, nil
}

// goneContainer is the error of Get for an agent without a container: not
// found when nothing of it is recorded, and damaged when its intent file
// outlives the container (removed by hand, or a removal whose provider died
// while the engine finished it). Reported as damaged, the agent stays
// tracked: apply creates the container again on its kept port, and destroy
// runs the deprovision that removes what is left.
func (r *Runtime) goneContainer(id string, notFound error) error {
	in := r.readIntent(id)
	if in == nil {
		return notFound
	}
	return agentruntime.Errorf(agentruntime.KindDamaged, "get", id, notFound,
		"the agent's container is gone from the engine at %s but its record is not (the container was removed outside "+
			"Terraform, or its removal was cut short); terraform apply creates it again on host port %d, and terraform "+
			"destroy removes what is left", r.engine.Host, in.Port)
}

// Recover finds the agents of earlier processes by their labels; the engine
// kept them, so they are adopted as they are.
func (r *Runtime) Recover(ctx context.Context) (agentruntime.Recovery, error) {
	items, err := r.listContainers(ctx, "recover")
	if err != nil {
		return agentruntime.Recovery{}, err
	}
	ids := make([]string, 0, len(items))
	for _, c := range items {
		ids = append(ids, c.Labels[labelAgentID])
	}
	sort.Strings(ids)
	return agentruntime.Recovery{Mode: agentruntime.Adopted, IDs: ids}, nil
}

// List returns every agent of this scope, sorted by id, probing the
// running ones concurrently. The list API leaves out each container's
// environment, where the config lives, so every container costs one
// inspect, made concurrently with the others.
func (r *Runtime) List(ctx context.Context) ([]agentruntime.Agent, error) {
	s, failures, err := r.survey(ctx)
	if err == nil {
		err = errors.Join(failures...)
	}
	if err != nil {
		return nil, err
	}
	return s.Agents, nil
}

var _ agentruntime.Surveyor = (*Runtime)(nil)

// Survey returns every agent whose container the engine lists, sorted by
// id, and names each one it cannot read: whose container it cannot
// inspect (left out, where List fails), or whose container holds no config
// (listed without it).
func (r *Runtime) Survey(ctx context.Context) (agentruntime.Survey, error) {
	s, failures, err := r.survey(ctx)
	for _, f := range failures {
		s.AddUnreadable(f)
	}
	sort.Slice(s.Unreadable, func(i, j int) bool { return s.Unreadable[i].ID < s.Unreadable[j].ID })
	return s, err
}

// survey inspects every container the engine lists as an agent's. It
// returns the agents, those without a config named unreadable, and the
// failures to inspect a container.
func (r *Runtime) survey(ctx context.Context) (s agentruntime.Survey, failures []error, err error) {
	const op = "list"
	items, err := r.listContainers(ctx, op)
	if err != nil {
		return agentruntime.Survey{}, nil, err
	}
	agents := make([]agentruntime.Agent, len(items))
	found := make([]bool, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, item := range items {
		wg.Go(func() {
			res, err := r.cli.ContainerInspect(ctx, item.ID, client.ContainerInspectOptions{})
			switch {
			case cerrdefs.IsNotFound(err):
				// Removed since it was listed: it is no longer an agent.
			case err != nil:
				errs[i] = r.engineError(op, item.Labels[labelAgentID], err)
			case res.Container.Config == nil || res.Container.State == nil:
				errs[i] = agentruntime.Errorf(agentruntime.KindBackend, op, item.Labels[labelAgentID], nil,
					"the engine at %s returned an incomplete container record", r.engine.Host)
			default:
				agents[i], found[i] = r.agent(ctx, &res.Container), true
			}
		})
	}
	wg.Wait()
	for i, a := range agents {
		if errs[i] != nil {
			failures = append(failures, errs[i])
		}
		if !found[i] {
			continue
		}
		if len(a.Config) == 0 {
			s.AddUnreadable(agentruntime.Errorf(agentruntime.KindDamaged, op, a.ID, nil,
				"container %s holds no agent config (was it changed outside Terraform?); terraform apply recreates it", shortID(items[i].ID)))
		}
		s.Agents = append(s.Agents, a)
	}
	sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].ID < s.Agents[j].ID })
	return s, failures, nil
}

func (r *Runtime) listContainers(ctx context.Context, op string) ([]containertypes.Summary, error) {
	res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{
		All: true,
		Filters: client.Filters{}.
			Add("label", labelManagedBy+"="+managedByValue, labelScope+"="+r.opts.Scope),
	})
	if err != nil {
		return nil, r.engineError(op, "", err)
	}
	// A container renamed aside while being replaced is not the agent; one
	// under its old name is.
	agents := res.Items[:0]
	for _, c := range res.Items {
		if r.namedAsAgent(c, c.Labels[labelAgentID]) {
			agents = append(agents, c)
		}
	}
	return agents, nil
}

// Deprovision stops the agent gracefully and removes its container; the
// base image stays, shared by every agent. An unknown id is success.
func (r *Runtime) Deprovision(ctx context.Context, id string) error {
	const op = "deprovision"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// A container of another's under the agent's name is not stopped, and
	// not removed: only those labelled as the agent's go.
	if err := r.stop(ctx, op, id); err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) && !agentruntime.IsKind(err, agentruntime.KindConflict) &&
		!errors.Is(err, errKeepsRestarting) {
		return err
	}
	// By label, so that a container renamed aside by a replace that was cut
	// short goes with its agent.
	containers, err := r.containersOf(ctx, op, id)
	if err != nil {
		return err
	}
	for _, c := range containers {
		if err := r.remove(ctx, op, id, c.ID); err != nil {
			return err
		}
	}
	// And those a container removed behind the adapter's back left.
	if err := r.removeOrphanedVolumes(ctx, op, id); err != nil {
		return err
	}
	releasePorts(id)
	r.opts.StateDir.ReleaseCreator(ctx, r.creatorKey(id))
	// The agent is gone for good, and its lock file with it. The lock file
	// goes before the intent file: a deprovision cut between the two leaves
	// the intent, which keeps the agent tracked (Get reads it damaged) until
	// a destroy finishes the job, where the other order would leave a lock
	// file that nothing tracks. A create of the same id in that moment finds
	// the intent and is refused as a conflict.
	if err := lock.Remove(); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return r.removeIntent(op, id)
}

// removeAside removes the agent's containers other than the one named as
// the agent's: left, renamed aside, by a replace that was cut short.
func (r *Runtime) removeAside(ctx context.Context, op, id string) error {
	containers, err := r.containersOf(ctx, op, id)
	if err != nil {
		return err
	}
	for _, c := range containers {
		if !r.namedAsAgent(c, id) {
			if err := r.remove(ctx, op, id, c.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// namedAsAgent reports whether c, one of agent id's containers, has the
// agent's name or its old one.
func (r *Runtime) namedAsAgent(c containertypes.Summary, id string) bool {
	return slices.Contains(c.Names, "/"+r.containerName(id)) || slices.Contains(c.Names, "/"+r.oldContainerName(id))
}

// containersOf lists every container labelled as the agent's, whatever
// its name.
func (r *Runtime) containersOf(ctx context.Context, op, id string) ([]containertypes.Summary, error) {
	res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{
		All: true,
		Filters: client.Filters{}.
			Add("label", labelManagedBy+"="+managedByValue, labelScope+"="+r.opts.Scope, labelAgentID+"="+id),
	})
	if err != nil {
		return nil, r.engineError(op, id, err)
	}
	return res.Items, nil
}

// agent is the runtime's view of a container, read from its labels and
// environment; running ones are probed.
func (r *Runtime) agent(ctx context.Context, c *containertypes.InspectResponse) agentruntime.Agent {
	labels := c.Config.Labels
	port, _ := strconv.Atoi(labels[labelPort])
	a := agentruntime.Agent{
		ID:               labels[labelAgentID],
		Name:             labels[labelAgentName],
		Endpoint:         r.opts.endpoint(port),
		Port:             port,
		ConfigSHA256:     labels[labelConfigSHA],
		InjectedEnv:      splitList(labels[labelInjectedEnv]),
		EnvAllowlist:     labels[labelEnvAllowlist],
		Settings:         settingsOf(labels),
		WriteOnly:        splitList(labels[labelWriteOnly]),
		WriteOnlyVersion: labels[labelWriteOnlyVersion],
		// The engine counts the restarts its policy made.
		Restarts: c.RestartCount,
	}
	if advertised, ok := envValue(c.Config.Env, agentconfig.AdvertisedURLVar); ok {
		a.Endpoint = advertised
	}
	// The config as provisioned; a container that lost it reads back none.
	if raw, ok := envValue(c.Config.Env, launch.ConfigEnvVar); ok {
		a.Config = []byte(raw)
	}
	paths := cardPaths(labels)
	a.CardURL = card.CardURL(a.Endpoint)
	if labels[labelCardPaths] != "" {
		a.CardURL = card.CardURLAt(a.Endpoint, paths[0])
	}
	switch state := c.State.Status; {
	case restarting(c):
		// An agent the engine restarts after each exit is not running: it
		// fails at start, and its logs say why.
		a.Health = agentruntime.HealthStopped
	case state == containertypes.StateCreated && labels[labelStarted] == "":
		a.Health = agentruntime.HealthProvisioned
	case state == containertypes.StateRunning || state == containertypes.StatePaused:
		a.Running, a.Instance = true, c.ID
		a.ChangedEnv = agentruntime.ChangedEnv(a.InjectedEnv, func(name string) (string, bool) { return envValue(c.Config.Env, name) })
		a.Health = agentruntime.HealthUnhealthy
		// The advertised URL may lead through a proxy this machine cannot
		// reach, so the card is probed where the engine publishes it.
		if state == containertypes.StateRunning {
			check := agentruntime.CheckCard(ctx, r.opts.endpoint(port), paths)
			a.Card, a.CardError = check.Card, check.Err
			if check.Healthy() {
				a.Health = agentruntime.HealthHealthy
			}
		}
	default:
		a.Health = agentruntime.HealthStopped
	}
	return a
}

// restarting reports whether the engine is restarting the container after
// it exited: Docker says so, Podman shows a failed exit with restarts.
func restarting(c *containertypes.InspectResponse) bool {
	st := c.State
	return st.Restarting || (!st.Running && st.ExitCode != 0 && c.RestartCount > 0)
}

// wasStarted reports whether the agent ever ran, in this container or in
// one it replaced.
func wasStarted(c *containertypes.InspectResponse) bool {
	return c.State.Status != containertypes.StateCreated || c.Config.Labels[labelStarted] != ""
}

// inspect returns the agent's container, or a NotFound error that tells
// the operator the container is gone. The container of an agent created
// before names told scopes apart may still have its old name: it is read
// there when it is labelled as this agent's, as under the old names
// another agent's container could hold that name.
func (r *Runtime) inspect(ctx context.Context, op, id string) (*containertypes.InspectResponse, error) {
	c, err := r.inspectNamed(ctx, op, id, r.containerName(id))
	old := r.oldContainerName(id)
	if old == r.containerName(id) || !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return c, err
	}
	oc, oerr := r.inspectNamed(ctx, op, id, old)
	switch {
	case oerr == nil:
		return oc, nil
	case agentruntime.IsKind(oerr, agentruntime.KindNotFound), agentruntime.IsKind(oerr, agentruntime.KindConflict):
		return nil, err
	default:
		return nil, oerr
	}
}

// inspectNamed returns the container named name when it is the agent's.
func (r *Runtime) inspectNamed(ctx context.Context, op, id, name string) (*containertypes.InspectResponse, error) {
	res, err := r.cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	if err != nil {
		return nil, r.engineError(op, id, err)
	}
	c := &res.Container
	if c.Config == nil || c.State == nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, id, nil, "the engine at %s returned an incomplete container record", r.engine.Host)
	}
	if !r.owns(c.Config.Labels, id) {
		return nil, agentruntime.Errorf(agentruntime.KindConflict, op, id, nil,
			"container %q on the engine at %s was not created for this agent by terraform-provider-a2a: remove or rename it, or rename the agent",
			name, r.engine.Host)
	}
	return c, nil
}

// owns reports whether labels mark a container or volume as agent id's.
func (r *Runtime) owns(labels map[string]string, id string) bool {
	return labels[labelManagedBy] == managedByValue && labels[labelScope] == r.opts.Scope && labels[labelAgentID] == id
}

// current is inspect for an operation that holds the agent's lock: a
// container found under the agent's old name is given its name first, its
// intent file moved ahead of it, so that this operation and every later one
// find both there, and the old name is free for the agent it now names. A
// crash leaves the container under one name or the other, either of which
// is found, and the intent under the new name, or under both until the
// next operation finishes the move.
func (r *Runtime) current(ctx context.Context, op, id string) (*containertypes.InspectResponse, error) {
	c, err := r.inspect(ctx, op, id)
	name := r.containerName(id)
	if err != nil || c.Name == "/"+name {
		return c, err
	}
	if err := r.moveIntent(op, id, strings.TrimPrefix(c.Name, "/")); err != nil {
		return nil, err
	}
	if _, err := r.cli.ContainerRename(ctx, c.ID, client.ContainerRenameOptions{NewName: name}); err != nil {
		return nil, r.engineError(op, id, err)
	}
	c.Name = "/" + name
	return c, nil
}

// create creates want, and the volume of its write-only values first.
func (r *Runtime) create(ctx context.Context, op, id string, want client.ContainerCreateOptions) (string, error) {
	want, volume, err := r.withWriteOnlyVolume(ctx, op, id, want)
	if err != nil {
		return "", err
	}
	res, err := r.cli.ContainerCreate(ctx, want)
	if err != nil && volume != "" {
		// Else the agent's next removal of orphaned volumes takes it.
		_, _ = r.cli.VolumeRemove(ctx, volume, client.VolumeRemoveOptions{})
	}
	switch {
	case err == nil:
		return res.ID, nil
	case nameTaken(err):
		return "", agentruntime.Errorf(agentruntime.KindConflict, op, id, err,
			"another provider process created container %q at the same time; apply again", want.Name)
	case networkMissing(err):
		return "", agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, err,
			"the engine at %s has no network %q (the provider's container network): create it there or set network to one that exists, then apply again",
			r.engine.Host, r.opts.Network)
	case cerrdefs.IsNotFound(err):
		return "", agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, err,
			"the engine at %s lacks image %q or network %q; load the image or create the network there, then apply again",
			r.engine.Host, want.Config.Image, r.opts.Network)
	default:
		return "", r.engineError(op, id, err)
	}
}

// replace creates want in place of the agent's container old and fills it
// (its write-only values). Old is renamed aside first and removed only once
// want exists and is filled, so that a create the engine refuses (a missing
// network or image, a name taken) leaves the agent as it was; a running old
// one is stopped within the grace period before it goes, like any stop. The
// new container remembers whether the agent ever ran.
func (r *Runtime) replace(ctx context.Context, op, id string, old *containertypes.InspectResponse, want client.ContainerCreateOptions,
	fill func(containerID string) error) (string, error) {
	if wasStarted(old) {
		want.Config.Labels[labelStarted] = "true"
	}
	// A dot, which no agent's name has, keeps it from taking another's.
	aside := want.Name + ".replaced-" + randomSuffix()
	if _, err := r.cli.ContainerRename(ctx, old.ID, client.ContainerRenameOptions{NewName: aside}); err != nil {
		return "", r.engineError(op, id, err)
	}
	created, err := r.create(ctx, op, id, want)
	if err == nil {
		if err = fill(created); err != nil {
			err = errors.Join(err, r.remove(ctx, op, id, created))
		}
	}
	if err != nil {
		if _, rerr := r.cli.ContainerRename(ctx, old.ID, client.ContainerRenameOptions{NewName: want.Name}); rerr != nil {
			return "", errors.Join(err, agentruntime.Errorf(agentruntime.KindBackend, op, id, rerr,
				"the agent's container %s is left named %q on the engine at %s: rename it back to %q (docker rename), then apply again",
				shortID(old.ID), aside, r.engine.Host, want.Name))
		}
		return "", err
	}
	if old.State.Running {
		if err := r.stopContainer(ctx, op, id, old.ID); err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) {
			return "", err
		}
	}
	if err := r.remove(ctx, op, id, old.ID); err != nil {
		return "", err
	}
	return created, nil
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// remove removes a container of agent id, one already gone being success,
// and the volumes of the agent it leaves unused, its own among them.
// Callers stop a running agent's container first; force only spares a race
// with the engine's restart policy.
func (r *Runtime) remove(ctx context.Context, op, id, container string) error {
	// With its anonymous volumes, where containers made before the adapter
	// created their volumes keep the write-only values.
	_, err := r.cli.ContainerRemove(ctx, container, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return r.engineError(op, id, err)
	}
	return r.removeOrphanedVolumes(ctx, op, id)
}

// lock gives one operation at a time on an agent, within this process and
// between processes sharing the state dir; the engine's unique container
// names guard against any other creator of the same container.
func (r *Runtime) lock(ctx context.Context, id string) (*statedir.KeyLock, error) {
	lock, err := r.opts.StateDir.LockKey(ctx, agentLockKey(r.containerName(id)))
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, "lock", id, err, "another operation on the agent did not finish in time")
	}
	return lock, nil
}

// agentLockKey names the state dir lock of the agent whose container is
// named container (unique per scope).
func agentLockKey(container string) string { return "container-" + container }

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// networkMissing reports whether a create failed for want of the network.
// Podman's Docker API answers 500, not 404, naming it so; Docker creates
// the container and refuses only to start it.
func networkMissing(err error) bool {
	return strings.Contains(err.Error(), "network not found")
}

// nameTaken reports whether a create failed because the container name is
// in use. Docker answers 409 Conflict; Podman's Docker API answers 500 with
// the same words, so both are recognised.
func nameTaken(err error) bool {
	return cerrdefs.IsConflict(err) || strings.Contains(err.Error(), "is already in use by")
}

// PlannedAddress is the address Provision gives the built-in host's agent
// whose config fixes its port.
func (r *Runtime) PlannedAddress(cfg *agentconfig.Config) (agentruntime.Address, bool) {
	if cfg.Runtime.Brought() {
		return agentruntime.Address{}, false
	}
	return agentruntime.FixedAddress(cfg, r.opts.AdvertiseHost)
}
