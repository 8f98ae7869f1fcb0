// Package agentruntime is the runtime port through which every Terraform
// operation reaches agents, and the pieces all adapters share: typed errors,
// the env allowlist and the checks applied to a spec before provisioning.
package agentruntime

import (
	"context"
	"errors"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Health is what an adapter observes of an agent right now.
type Health string

const (
	// HealthProvisioned: recorded but never started.
	HealthProvisioned Health = "provisioned"
	// HealthHealthy: running and its card answers at the endpoint.
	HealthHealthy Health = "healthy"
	// HealthUnhealthy: running but the card does not answer.
	HealthUnhealthy Health = "unhealthy"
	// HealthStopped: not running (stopped, crashed or exited).
	HealthStopped Health = "stopped"
	// HealthDegraded: running and its card answers, but some of its
	// instances are lost (on Kubernetes, pods on a node that stopped
	// answering) until the runtime replaces them.
	HealthDegraded Health = "degraded"
)

// Spec is what the caller asks to provision: a raw config and the env
// allowlist it may draw on (nil denies every variable).
type Spec struct {
	Config    []byte
	Allowlist *EnvAllowlist
	// WriteOnly are the agent's write-only values: variables the config may
	// reference besides the allowlisted ones of the provider's environment,
	// which they take precedence over. The runtime keeps them, apart from
	// the config, where the agent can read them again when it restarts.
	WriteOnly WriteOnlyValues
	// WriteOnlyVersion is the version the configuration gives those
	// values (env_wo_version), empty for none. The runtime records it, so
	// that an agent imported reads it back and plans no change.
	WriteOnlyVersion string
	// CreateOnly makes Provision fail with KindConflict if the id exists,
	// checked atomically with the creation, so that two creators of one id
	// never both believe they own it.
	CreateOnly bool
	// AllowlistPending says the allowlist the agent will draw on is not
	// known yet (the plan that checks the spec may create it): Check then
	// makes every check but the env check, and Provision refuses the spec.
	AllowlistPending bool
	// PreferredPort is the port a new agent whose config names none gets
	// when it is free: the port of the agent it replaces, so that a
	// replaced agent keeps its address. An agent that exists keeps its own
	// port, and one that is taken is not waited for.
	PreferredPort int
	// Replicas is how many instances of the agent run at once, for a
	// runtime that is a ReplicaRunner; zero means its DefaultReplicas.
	// Other runtimes run one, and the provider refuses more for them at
	// plan time.
	Replicas int
	// Workload shapes the agent's objects on a WorkloadRunner; others
	// are never given one.
	Workload Workload
}

// ReplicaRunner is implemented by runtimes that run an agent as several
// instances behind one address (Spec.Replicas).
type ReplicaRunner interface {
	// DefaultReplicas is how many instances an agent whose spec asks for
	// none runs.
	DefaultReplicas() int
}

// RequireKnownAllowlist is the check every Provision makes first: only
// Check takes a spec whose allowlist is still pending.
func RequireKnownAllowlist(op string, spec Spec) error {
	if !spec.AllowlistPending {
		return nil
	}
	return newError(KindInvalidConfig, op, "", "the env allowlist is not known yet: provision the agent once its allowlist is stored", nil)
}

// ExistsError is the error of a CreateOnly Provision that finds id taken.
func ExistsError(op, id string) *Error {
	return newError(KindConflict, op, id, "an agent with this id already exists; import it, or give the new agent another agent.name", nil)
}

// Agent is the runtime's view of one agent.
type Agent struct {
	ID           string
	Name         string
	Endpoint     string // advertised base URL; JSON-RPC is served here
	CardURL      string
	Port         int // the port clients reach the agent on
	ConfigSHA256 string
	InjectedEnv  []string // names only, never values
	// ChangedEnv names the injected variables a running agent holds
	// another value of than the provider's environment does now (see
	// ChangedEnv): starting it again would give it the new ones.
	ChangedEnv []string
	// WriteOnly names the write-only values the runtime keeps for the
	// agent, never the values.
	WriteOnly []string
	// WriteOnlyVersion is the version of the write-only values recorded
	// at provisioning (Spec.WriteOnlyVersion).
	WriteOnlyVersion string
	Instance         string // pid or container id; empty when not running
	Running          bool
	Health           Health
	// Config is the raw config last provisioned, so that an imported agent
	// reads back exactly what was declared.
	Config []byte
	// EnvAllowlist names the allowlist the agent was provisioned with;
	// empty when it names none.
	EnvAllowlist string
	// Card is the card a healthy agent serves, as probed.
	Card *card.Parsed
	// CardError says why a running agent is unhealthy: its card does not
	// answer, or answers invalid (a *card.ValidationError naming each
	// problem by JSON path).
	CardError error
	// Degradation says what a degraded agent has lost, and why.
	Degradation string
	// Restarts counts the times the runtime (its supervisor, engine or
	// kubelet) restarted the agent after it exited on its own, since it
	// was last started.
	Restarts int
	// Failure says why an agent that is not running stays down although
	// its restart policy restarts it: it reached the restart limit. It
	// ends with the last lines of the agent's log.
	Failure string
	// Unclaimed marks an agent made by a create-only Provision that no
	// one has claimed yet (see Claimer).
	Unclaimed bool
	// Replicas is how many instances a ReplicaRunner runs of the agent
	// when it runs; zero from other runtimes.
	Replicas int
	// Workload is the workload the agent was provisioned with, as its
	// objects record it, from a WorkloadRunner.
	Workload Workload
	// Settings are the provider-level settings the agent's objects carry,
	// read off them, as a SettingsRunner names them; nil from other
	// runtimes, and from objects that do not tell (made by an older
	// release).
	Settings map[string]string
}

// RecoveryMode says whether a runtime can find its agents again after the
// process that started them is gone.
type RecoveryMode string

const (
	// Adopted: the agents listed are alive and managed again.
	Adopted RecoveryMode = "adopted"
	// Ephemeral: the runtime keeps nothing across processes.
	Ephemeral RecoveryMode = "ephemeral"
)

// Recovery is the answer of Recover.
type Recovery struct {
	Mode RecoveryMode
	IDs  []string
	// Unmanaged are agents found running that no record of this runtime
	// accounts for, such as those of a state dir that was moved or lost.
	Unmanaged []Unmanaged
}

// Unmanaged is an agent that runs without a record to manage it by.
type Unmanaged struct {
	ID       string
	Instance string
	// Why says what became of its record and what to do about it.
	Why string
}

// Claimer is a Runtime that tells an agent whose creator is known to
// track it from one that a create left behind when it died before its
// caller recorded the agent. A create-only Provision of the very same
// spec takes over an unclaimed agent whose creator is gone, rather than
// refusing it as existing.
type Claimer interface {
	// Claim records that the caller tracks the agent, so that no later
	// create takes it over. Claiming a claimed agent is success.
	Claim(ctx context.Context, id string) error
}

// EventReader is a Runtime whose engine records what happened to an
// agent's instances apart from their output, as a cluster records events
// of the pods it cannot schedule, pull, start or probe. A failed start
// reports them with the agent's log tail: they often say what the log
// cannot, such as why no instance ever ran.
type EventReader interface {
	// Events returns the last max events of the agent, oldest first, one
	// line each (all when max <= 0).
	Events(ctx context.Context, id string, max int) ([]string, error)
}

// Runtime is the port. Every method is safe for concurrent use, including
// by several processes sharing one state dir or engine.
type Runtime interface {
	// Check applies, without side effects, every check Provision would make
	// of spec, so that mistakes surface at plan time; with
	// spec.AllowlistPending, every check but the env check. It returns the
	// agent as Provision would prepare it.
	Check(ctx context.Context, spec Spec) (Prepared, error)
	// Provision records the agent described by spec and returns it,
	// without starting it. Provisioning an id that exists replaces its
	// config, and the caller restarts the agent for the config to take
	// effect; the allocated port is kept, unless spec.CreateOnly asks for
	// a new agent only. A running agent is never killed by Provision: it
	// either runs on with its old config until restarted, or, where the
	// new config needs a new process or container, is stopped as Stop
	// stops it (SIGTERM, then the grace period).
	Provision(ctx context.Context, spec Spec) (Agent, error)
	// Start starts a provisioned or stopped agent; a KindAlreadyRunning error if it runs.
	Start(ctx context.Context, id string) error
	// Stop stops the agent, gracefully first; stopping a stopped agent is success.
	Stop(ctx context.Context, id string) error
	// Get returns the agent with its current health.
	Get(ctx context.Context, id string) (Agent, error)
	// Recover finds agents started by earlier processes.
	Recover(ctx context.Context) (Recovery, error)
	// List returns every agent the runtime knows, sorted by id.
	List(ctx context.Context) ([]Agent, error)
	// Logs returns the last tail lines of the agent's output (all when tail <= 0).
	Logs(ctx context.Context, id string, tail int) ([]string, error)
	// Deprovision stops the agent and removes every trace of it; an
	// unknown id is success.
	Deprovision(ctx context.Context, id string) error
	// Identity names this runtime, so that an agent it started can be
	// reached through it again whatever the provider block says later.
	Identity() Identity
	// PlannedAddress returns the address the agent of cfg will have once
	// provisioned, so that a plan shows it, and false when only
	// provisioning can tell (a port the runtime allocates, an agent of its
	// own that serves its card elsewhere). A zero Port is one only
	// provisioning tells, where the endpoint does not depend on it.
	PlannedAddress(cfg *agentconfig.Config) (Address, bool)
}

// WaitHealthy polls until the agent is healthy, the context ends, or the
// agent stops. It returns the last health observed. An agent whose card
// answers but is invalid fails at once, with the card's problems: it will
// not fix itself.
func WaitHealthy(ctx context.Context, rt Runtime, id string) (Health, error) {
	delay := 10 * time.Millisecond
	for {
		a, err := rt.Get(ctx, id)
		if err != nil {
			return a.Health, err
		}
		var invalid *card.ValidationError
		switch {
		case a.Health == HealthHealthy:
			return a.Health, nil
		case a.Health == HealthStopped, a.Health == HealthProvisioned:
			msg := "the agent is not running (it exited or was never started)"
			if a.CardError != nil {
				// The runtime knows why, such as a cluster retrying pods
				// that cannot run.
				msg += ": " + a.CardError.Error()
			}
			return a.Health, newError(KindSpawnFailure, "wait for healthy", id, msg, nil)
		case errors.As(a.CardError, &invalid):
			return a.Health, newError(KindSpawnFailure, "wait for healthy", id,
				"the agent runs but the card it serves at "+a.CardURL+" is not a valid A2A 1.0 or 0.3 card, so clients cannot use it; fix the card the agent serves", a.CardError)
		}
		select {
		case <-ctx.Done():
			msg := "the agent did not become healthy in time: its card does not answer"
			switch {
			case a.Health == HealthDegraded:
				msg = "the agent did not become healthy in time: it answers, but is degraded (" + a.Degradation + ")"
			case a.CardError != nil:
				msg += " (" + a.CardError.Error() + ")"
			}
			return a.Health, newError(KindBackend, "wait for healthy", id, msg, ctx.Err())
		case <-time.After(delay):
		}
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}
