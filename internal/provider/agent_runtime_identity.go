package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// privateRuntimeKey is the private-state key under which each agent keeps
// the identity of the runtime that started it.
const privateRuntimeKey = "runtime"

// privateGetter and privateSetter are the parts of a resource's private
// state used here; requests and responses offer them.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// storedIdentity reads the runtime identity an agent keeps; nil when it
// keeps none (created by an older provider, or being imported).
func storedIdentity(ctx context.Context, p privateGetter) (*agentruntime.Identity, diag.Diagnostics) {
	if p == nil {
		return nil, nil
	}
	raw, diags := p.GetKey(ctx, privateRuntimeKey)
	if diags.HasError() || len(raw) == 0 {
		return nil, diags
	}
	var id agentruntime.Identity
	if err := json.Unmarshal(raw, &id); err != nil || id.Adapter == "" {
		// Unreadable private state cannot name another runtime; the
		// provider's own is the best guess, and the next save repairs it.
		return nil, diags
	}
	return &id, diags
}

// rememberIdentity stores the identity of the runtime an agent lives in.
func rememberIdentity(ctx context.Context, p privateSetter, id agentruntime.Identity) diag.Diagnostics {
	raw, err := json.Marshal(id)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record the agent's runtime", err.Error())
		return diags
	}
	return p.SetKey(ctx, privateRuntimeKey, raw)
}

// elsewhere reports whether an agent whose private state names stored
// lives in another runtime than the one the provider block selects now.
func (r *agentResource) elsewhere(stored *agentruntime.Identity) bool {
	return stored != nil && r.deps != nil && !stored.Same(r.deps.runtime.Identity())
}

// runtimeOf returns the runtime an agent lives in: the provider's own,
// unless the agent was started by another, which is then opened for the
// occasion and released by the returned function.
func (r *agentResource) runtimeOf(ctx context.Context, stored *agentruntime.Identity) (agentruntime.Runtime, func(), error) {
	if !r.elsewhere(stored) {
		return r.deps.runtime, func() {}, nil
	}
	if r.deps.open == nil {
		return nil, nil, fmt.Errorf("this provider cannot open the %s runtime the agent was started in", stored)
	}
	return r.deps.open(ctx, *stored)
}

// openFunc opens the runtime an identity names, for an agent started under
// another provider block than the present one.
type openFunc func(ctx context.Context, id agentruntime.Identity) (agentruntime.Runtime, func(), error)

// opener opens the runtimes identities name, sharing dir, the provider's
// state dir, and its locks with the container and kubernetes adapters.
func opener(s settings, dir *statedir.Dir) openFunc {
	return func(ctx context.Context, id agentruntime.Identity) (agentruntime.Runtime, func(), error) {
		rt, err := newRuntime(ctx, s, dir, &id)
		if err != nil {
			return nil, nil, err
		}
		if c, ok := rt.(io.Closer); ok {
			return rt, func() { _ = c.Close() }, nil
		}
		return rt, func() {}, nil
	}
}

// planMove replaces an agent that lives in another runtime than the one
// the provider block selects now (another adapter, state dir, engine or
// scope): apply stops it where it runs and creates it anew here. The
// instance, which a new runtime gives afresh, carries the replacement.
func (r *agentResource) planMove(ctx context.Context, private privateGetter, plan *agentModel, resp *resource.ModifyPlanResponse) diag.Diagnostics {
	stored, diags := storedIdentity(ctx, private)
	if !r.elsewhere(stored) {
		return diags
	}
	plan.Instance, plan.RestartCount = types.StringUnknown(), types.Int64Unknown()
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("instance"))
	diags.AddWarning("Agent "+plan.ID.ValueString()+" moves to another runtime",
		fmt.Sprintf("The agent was started by the %s runtime, and the provider block now selects the %s runtime. "+
			"Apply stops and removes it where it runs, then creates it in the new runtime.", stored, r.deps.runtime.Identity()))
	return diags
}
