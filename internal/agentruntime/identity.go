package agentruntime

import (
	"encoding/json"
	"strings"
)

// The adapters' names, as Identity.Adapter holds them and the provider
// block's adapter blocks are named.
const (
	AdapterLocal      = "local"
	AdapterContainer  = "container"
	AdapterKubernetes = "kubernetes"
	AdapterMemory     = "memory"
)

// Identity names the runtime an agent lives in: the adapter and where that
// adapter keeps its agents. The provider stores it with each agent, so that
// the agent is always read and stopped through the runtime that started it,
// even after the provider block has been pointed elsewhere.
type Identity struct {
	// Adapter is the adapter's name, one of the Adapter constants.
	Adapter string `json:"adapter"`
	// StateDir is the state dir's path where the agents live in one (local).
	StateDir string `json:"state_dir,omitempty"`
	// StateDirID tells a state dir that was moved (same id, another path)
	// from another one created at the same path (another id).
	StateDirID string `json:"state_dir_id,omitempty"`
	// Engine is the engine or cluster address (container, kubernetes).
	Engine string `json:"engine,omitempty"`
	// Namespace is the cluster namespace the agents live in (kubernetes).
	Namespace string `json:"namespace,omitempty"`
	// Scope separates configurations that share one engine or namespace.
	Scope string `json:"scope,omitempty"`
}

// UnmarshalJSON reads an identity as stored, also in the form releases
// before the Namespace field stored a kubernetes one in: namespace and
// scope packed into Scope as <namespace>/<scope>. Neither may hold a '/',
// so the first one splits them.
func (i *Identity) UnmarshalJSON(data []byte) error {
	type stored Identity
	if err := json.Unmarshal(data, (*stored)(i)); err != nil {
		return err
	}
	if i.Adapter == AdapterKubernetes && i.Namespace == "" {
		if ns, scope, packed := strings.Cut(i.Scope, "/"); packed {
			i.Namespace, i.Scope = ns, scope
		}
	}
	return nil
}

// Same reports whether i and o name the same runtime. A state dir is the
// same when its id is, wherever it now lies; without ids, when its path is.
func (i Identity) Same(o Identity) bool {
	if i.Adapter != o.Adapter || i.Engine != o.Engine || i.Namespace != o.Namespace || i.Scope != o.Scope {
		return false
	}
	if i.StateDirID != "" && o.StateDirID != "" {
		return i.StateDirID == o.StateDirID
	}
	return i.StateDir == o.StateDir
}

// String describes the runtime for messages, such as
// `local (state dir /var/lib/a2a)`.
func (i Identity) String() string {
	var where []string
	if i.StateDir != "" {
		where = append(where, "state dir "+i.StateDir)
	}
	if i.Engine != "" {
		where = append(where, "engine "+i.Engine)
	}
	if i.Namespace != "" {
		where = append(where, "namespace "+i.Namespace)
	}
	if i.Scope != "" {
		where = append(where, "scope "+i.Scope)
	}
	if len(where) == 0 {
		return i.Adapter
	}
	return i.Adapter + " (" + strings.Join(where, ", ") + ")"
}
