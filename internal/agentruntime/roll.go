package agentruntime

import "context"

// Roller is a Runtime that runs an agent as instances it can replace one
// at a time behind the agent's address, so that a change reaches a running
// agent with no moment in which none answers. Runtimes that run one
// instance on one port cannot run the new beside the old: they restart it
// in place (Provision, Stop, Start).
type Roller interface {
	// Roll provisions spec over the running agent it names and replaces
	// every instance with a fresh one running it, even when spec is the
	// one provisioned: a new instance takes calls once its card answers,
	// and an old one leaves only once another has taken its place and it
	// has drained. Roll returns once only new instances are left, healthy.
	//
	// When the new instances do not become healthy (they exit, cannot be
	// made, serve an invalid card, or the context ends first), Roll puts
	// the previous spec back, the previous instances having served
	// throughout, and returns a *RolloutError. Until a roll has finished,
	// Get reports the previous spec, and a running agent whose roll did not
	// finish (cut short with its process) reads unhealthy, so that the
	// caller rolls it again. An agent that does not run (stopped, crashed,
	// its objects deleted) is provisioned only, as Provision does: the
	// caller starts it.
	Roll(ctx context.Context, spec Spec) (Agent, error)
}

// RolloutError is the error of a Roll whose new instances did not become
// healthy. The previous instances serve on; the new ones are removed, and
// with them their logs, so the error carries what they logged and what
// the runtime recorded of them, oldest first.
type RolloutError struct {
	Err    *Error
	Logs   []string
	Events []string
}

func (e *RolloutError) Error() string { return e.Err.Error() }

func (e *RolloutError) Unwrap() error { return e.Err }
