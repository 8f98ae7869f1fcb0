package agentruntime

import "context"

// Restarter is a Runtime that restarts a running agent by replacing its
// instances one at a time behind its address, so that it answers
// throughout. Runtimes that run one instance on one port restart it by a
// stop and a start instead (see Restart).
type Restarter interface {
	// Restart replaces every instance of the running agent id with a fresh
	// one of the spec it runs, as Roller.Roll replaces them, the new ones
	// given the values the agent's allowlisted variables have in this
	// process now and the write-only values the runtime keeps. It fails
	// with KindNotRunning when the agent does not run, starting nothing.
	Restart(ctx context.Context, id string) error
}

// Restart restarts the running agent id in place, so that it runs with
// the values its allowlisted variables have in this process now and the
// write-only values the runtime keeps, such as after a secret was
// rotated: by a rolling restart where rt is a Restarter, else by a stop
// and a start. It returns the agent once it is healthy again. An agent
// that does not run fails with KindNotRunning and stays as it is:
// starting it is the caller's to decide.
func Restart(ctx context.Context, rt Runtime, id string) (Agent, error) {
	const op = "restart"
	a, err := rt.Get(ctx, id)
	if err != nil {
		return Agent{}, err
	}
	if !a.Running {
		return a, Errorf(KindNotRunning, op, id, nil, "the agent is not running (it reads %s): terraform apply starts it", a.Health)
	}
	if r, ok := rt.(Restarter); ok {
		err = r.Restart(ctx, id)
	} else if err = rt.Stop(ctx, id); err == nil {
		err = rt.Start(ctx, id)
	}
	if err != nil {
		return Agent{}, err
	}
	if _, err := WaitHealthy(ctx, rt, id); err != nil {
		return Agent{}, err
	}
	return rt.Get(ctx, id)
}
