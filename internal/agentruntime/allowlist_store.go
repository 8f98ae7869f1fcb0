package agentruntime

import "context"

// AllowlistStore keeps the env allowlists agents name. It is independent of
// the adapter: whatever runs the agents, allowlists live in the runtime
// core's state dir so that an agent can name one and import can find it.
type AllowlistStore interface {
	// Put validates and saves the allowlist, replacing one of the same name.
	Put(ctx context.Context, a EnvAllowlist) error
	// Get returns the named allowlist, or an error of KindNotFound.
	Get(ctx context.Context, name string) (EnvAllowlist, error)
	// Delete removes the named allowlist; an unknown name is success.
	Delete(ctx context.Context, name string) error
}

// AllowlistNotFound is the error for an allowlist name the store does not know.
func AllowlistNotFound(op, name string) *Error {
	return Errorf(KindNotFound, op, "", nil,
		"no env allowlist named %q; create it with an a2a_env_allowlist resource first", name)
}
