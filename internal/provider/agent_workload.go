package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// workloadModel is the agent's kubernetes attribute.
type workloadModel struct {
	Labels         types.Map    `tfsdk:"labels"`
	Annotations    types.Map    `tfsdk:"annotations"`
	ServiceAccount types.String `tfsdk:"service_account"`
	NodeSelector   types.Map    `tfsdk:"node_selector"`
	Tolerations    types.List   `tfsdk:"tolerations"`
	PriorityClass  types.String `tfsdk:"priority_class"`
	TopologySpread types.Object `tfsdk:"topology_spread"`
	Budget         types.Object `tfsdk:"disruption_budget"`
	Resources      types.Object `tfsdk:"resources"`
	Service        types.Object `tfsdk:"service"`
	Autoscaling    types.Object `tfsdk:"autoscaling"`
	Rollout        types.Object `tfsdk:"rollout"`
}

type rolloutModel struct {
	MaxSurge       types.String `tfsdk:"max_surge"`
	MaxUnavailable types.String `tfsdk:"max_unavailable"`
}

type autoscalingModel struct {
	MinReplicas          types.Int64 `tfsdk:"min_replicas"`
	MaxReplicas          types.Int64 `tfsdk:"max_replicas"`
	TargetCPUUtilization types.Int64 `tfsdk:"target_cpu_utilization"`
}

type serviceModel struct {
	AppProtocol types.String `tfsdk:"app_protocol"`
	Annotations types.Map    `tfsdk:"annotations"`
}

type spreadModel struct {
	TopologyKey       types.String `tfsdk:"topology_key"`
	WhenUnsatisfiable types.String `tfsdk:"when_unsatisfiable"`
	MaxSkew           types.Int64  `tfsdk:"max_skew"`
}

type budgetModel struct {
	MinAvailable   types.String `tfsdk:"min_available"`
	MaxUnavailable types.String `tfsdk:"max_unavailable"`
}

type tolerationModel struct {
	Key               types.String `tfsdk:"key"`
	Operator          types.String `tfsdk:"operator"`
	Value             types.String `tfsdk:"value"`
	Effect            types.String `tfsdk:"effect"`
	TolerationSeconds types.Int64  `tfsdk:"toleration_seconds"`
}

var tolerationType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType,
	"toleration_seconds": types.Int64Type,
}}

var spreadType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"topology_key": types.StringType, "when_unsatisfiable": types.StringType, "max_skew": types.Int64Type,
}}

var budgetType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"min_available": types.StringType, "max_unavailable": types.StringType,
}}

var resourcesType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"cpu_request": types.StringType, "memory_request": types.StringType, "cpu_limit": types.StringType, "memory_limit": types.StringType,
}}

var serviceType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"app_protocol": types.StringType, "annotations": types.MapType{ElemType: types.StringType},
}}

var autoscalingType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"min_replicas": types.Int64Type, "max_replicas": types.Int64Type, "target_cpu_utilization": types.Int64Type,
}}

var rolloutType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"max_surge": types.StringType, "max_unavailable": types.StringType,
}}

var workloadType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"labels": types.MapType{ElemType: types.StringType}, "annotations": types.MapType{ElemType: types.StringType},
	"service_account": types.StringType, "node_selector": types.MapType{ElemType: types.StringType},
	"tolerations": types.ListType{ElemType: tolerationType}, "priority_class": types.StringType,
	"topology_spread": spreadType, "disruption_budget": budgetType, "resources": resourcesType,
	"service": serviceType, "autoscaling": autoscalingType,
	"rollout": rolloutType,
}}

func workloadSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "How the agent runs as a workload of the cluster, on the `kubernetes` adapter only (the other adapters " +
			"refuse it at plan time). Each setting is checked at plan against what the API server accepts; a change of one rolls " +
			"the agent's pods over without downtime, as a config change does, and a change made outside Terraform (such as " +
			"`kubectl edit`) shows in plan under `runtime_settings` and is undone by apply.",
		Attributes: map[string]schema.Attribute{
			"labels": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Labels of the agent's objects and pods, beside the provider's own (keys beginning with `a2a/` " +
					"or `app.kubernetes.io/managed-by` are refused).",
			},
			"annotations": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Annotations of the agent's objects and pods, beside the provider's own. Refused: keys beginning " +
					"with `a2a/`, and those that would change the pods' security, which the provider sets itself (non-root uid 65534, " +
					"seccomp `RuntimeDefault`, every capability dropped): AppArmor, seccomp and sysctl annotations (any key whose prefix " +
					"is a `security` domain of `kubernetes.io`, such as `container.apparmor.security.beta.kubernetes.io/agent` or " +
					"`seccomp.security.alpha.kubernetes.io/pod`), `kubernetes.io/psp`, and the container runtimes' sandbox " +
					"settings (`io.kubernetes.cri-o.`, `io.katacontainers.`, `dev.gvisor.`).",
			},
			"service_account": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The service account the pods run as, for instance for a cloud's workload identity. Its token " +
					"is then mounted in the pods, which it is not without one.",
			},
			"node_selector": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Node labels the pods' nodes must have. The control-plane role labels " +
					"(`node-role.kubernetes.io/control-plane`, `master`, `controlplane`, `etcd`) are refused unless the provider's " +
					"`kubernetes` block sets `allow_system_placement`.",
			},
			"tolerations": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Taints the pods tolerate. A toleration of the control-plane nodes' taints " +
					"(`node-role.kubernetes.io/control-plane`, `master`, `controlplane`, `etcd`), or of every taint (no key, " +
					"`operator = \"Exists\"`), is refused unless the provider's `kubernetes` block sets `allow_system_placement`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":      schema.StringAttribute{Optional: true, MarkdownDescription: "The taint's key; empty, with operator `Exists`, for every taint."},
					"operator": schema.StringAttribute{Optional: true, MarkdownDescription: "`Equal` (the default) or `Exists`."},
					"value":    schema.StringAttribute{Optional: true, MarkdownDescription: "The taint's value, with operator `Equal`."},
					"effect":   schema.StringAttribute{Optional: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule`, `NoExecute`, or empty for all."},
					"toleration_seconds": schema.Int64Attribute{
						Optional: true, MarkdownDescription: "With effect `NoExecute`: how long a pod stays on a node once the taint appears.",
					},
				}},
			},
			"priority_class": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The PriorityClass of the pods; it must exist. Names beginning with `system-` " +
					"(`system-node-critical`, `system-cluster-critical`), which Kubernetes reserves for its own pods, are refused " +
					"unless the provider's `kubernetes` block sets `allow_system_placement`.",
			},
			"topology_spread": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "How the pods spread across a topology. Default, for an agent of two or more replicas: across " +
					"nodes (`kubernetes.io/hostname`) where the cluster can (`ScheduleAnyway`), at most one pod more on one node than another.",
				Attributes: map[string]schema.Attribute{
					"topology_key": schema.StringAttribute{
						Required: true, MarkdownDescription: "The node label whose values are the domains, such as `kubernetes.io/hostname` or `topology.kubernetes.io/zone`.",
					},
					"when_unsatisfiable": schema.StringAttribute{
						Required: true, MarkdownDescription: "`ScheduleAnyway` (prefer the spread) or `DoNotSchedule` (require it).",
					},
					"max_skew": schema.Int64Attribute{
						Required: true, MarkdownDescription: "How many more pods one domain may have than another; at least 1.",
					},
				},
			},
			"resources": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "What the agent's container requests and is limited to, as Kubernetes quantities (`\"250m\"` " +
					"or `\"0.5\"` of CPU, `\"128Mi\"` of memory). Each one set replaces the provider block's `resources` for this agent.",
				Attributes: map[string]schema.Attribute{
					"cpu_request":    schema.StringAttribute{Optional: true, MarkdownDescription: "CPU requested."},
					"memory_request": schema.StringAttribute{Optional: true, MarkdownDescription: "Memory requested."},
					"cpu_limit":      schema.StringAttribute{Optional: true, MarkdownDescription: "CPU limit."},
					"memory_limit":   schema.StringAttribute{Optional: true, MarkdownDescription: "Memory limit."},
				},
			},
			"service": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "What a gateway or mesh reads off the agent's Service to route A2A to it. The built-in host " +
					"serves HTTP/1.1 and, for gRPC, HTTP/2 without TLS on its one port: `app_protocol = \"kubernetes.io/h2c\"` tells a " +
					"gateway to speak HTTP/2 to it.",
				Attributes: map[string]schema.Attribute{
					"app_protocol": schema.StringAttribute{Optional: true, MarkdownDescription: "The `appProtocol` of the Service's port."},
					"annotations": schema.MapAttribute{
						Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Annotations of the Service alone, beside the `annotations` every object of the agent gets.",
					},
				},
			},
			"autoscaling": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Hands the number of pods to a HorizontalPodAutoscaler (`autoscaling/v2`), which keeps the pods' " +
					"average CPU use near a target, between two bounds; the cluster needs a metrics API (metrics-server). The agent " +
					"starts with `min_replicas` pods, and `replicas` then reads how many it runs: it may not be set, and plan never " +
					"changes it. Provisioning and rolling keep the autoscaler's count. The spread and budget defaults follow `max_replicas`.",
				Attributes: map[string]schema.Attribute{
					"min_replicas": schema.Int64Attribute{Required: true, MarkdownDescription: "The fewest pods; at least 1."},
					"max_replicas": schema.Int64Attribute{Required: true, MarkdownDescription: "The most pods; at least `min_replicas`."},
					"target_cpu_utilization": schema.Int64Attribute{
						Required: true, MarkdownDescription: "The average CPU use to keep, in percent of what the pods request.",
					},
				},
			},
			"rollout": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "How many pods a rollout may add, and take away, at once: each a number (`\"1\"`) or a percentage " +
					"(`\"25%\"`), not both zero. Default: one added at a time, none taken away before its replacement is available, " +
					"so that the agent keeps its capacity throughout.",
				Attributes: map[string]schema.Attribute{
					"max_surge":       schema.StringAttribute{Required: true, MarkdownDescription: "Pods added beyond the count at once."},
					"max_unavailable": schema.StringAttribute{Required: true, MarkdownDescription: "Pods that may be unavailable at once."},
				},
			},
			"disruption_budget": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "A PodDisruptionBudget: how many pods must stay, or may go at once, while a node is drained. " +
					"Default, for an agent of two or more replicas: `max_unavailable = \"1\"`; none for one replica.",
				Attributes: map[string]schema.Attribute{
					"min_available": schema.StringAttribute{
						Optional: true, MarkdownDescription: "Pods that must stay available: a number (`\"2\"`) or a percentage (`\"50%\"`).",
					},
					"max_unavailable": schema.StringAttribute{
						Optional: true, MarkdownDescription: "Pods that may be unavailable at once: a number or a percentage. Exactly one of the two is set.",
					},
				},
			},
		},
	}
}

// agentDefaultsSchema is the provider block's kubernetes.agent_defaults:
// the agent's kubernetes attribute, as every agent's default.
func agentDefaultsSchema() schema.SingleNestedAttribute {
	defaults := workloadSchema()
	defaults.MarkdownDescription = "Every agent's `kubernetes` settings, unless its own `kubernetes` attribute says otherwise: " +
		"a setting the agent makes wins, its maps (`labels`, `annotations`, `node_selector`) merged over these, the keys it sets " +
		"winning. The same attributes as `a2a_agent`'s `kubernetes`, but for `resources`, which is this block's `resources`. " +
		"Changing one plans an update of every agent it reaches, which rolls its pods over."
	return defaults
}

// workloadOf reads the agent's kubernetes attribute; none when it is null
// or not yet known.
func workloadOf(ctx context.Context, obj types.Object) (agentruntime.Workload, diag.Diagnostics) {
	var w agentruntime.Workload
	if obj.IsNull() || obj.IsUnknown() {
		return w, nil
	}
	var m workloadModel
	diags := obj.As(ctx, &m, basetypes.ObjectAsOptions{})
	if diags.HasError() {
		return w, diags
	}
	w.Labels = stringMapOf(ctx, m.Labels, &diags)
	w.Annotations = stringMapOf(ctx, m.Annotations, &diags)
	w.NodeSelector = stringMapOf(ctx, m.NodeSelector, &diags)
	w.ServiceAccount = m.ServiceAccount.ValueString()
	w.PriorityClass = m.PriorityClass.ValueString()
	if !m.Tolerations.IsNull() && !m.Tolerations.IsUnknown() {
		var ts []tolerationModel
		diags.Append(m.Tolerations.ElementsAs(ctx, &ts, false)...)
		for _, t := range ts {
			tol := agentruntime.Toleration{Key: t.Key.ValueString(), Operator: t.Operator.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()}
			if !t.TolerationSeconds.IsNull() && !t.TolerationSeconds.IsUnknown() {
				seconds := t.TolerationSeconds.ValueInt64()
				tol.Seconds = &seconds
			}
			w.Tolerations = append(w.Tolerations, tol)
		}
	}
	if !m.TopologySpread.IsNull() && !m.TopologySpread.IsUnknown() {
		var sp spreadModel
		diags.Append(m.TopologySpread.As(ctx, &sp, basetypes.ObjectAsOptions{})...)
		w.TopologySpread = &agentruntime.TopologySpread{TopologyKey: sp.TopologyKey.ValueString(),
			WhenUnsatisfiable: sp.WhenUnsatisfiable.ValueString(), MaxSkew: int32(sp.MaxSkew.ValueInt64())}
	}
	if !m.Budget.IsNull() && !m.Budget.IsUnknown() {
		var b budgetModel
		diags.Append(m.Budget.As(ctx, &b, basetypes.ObjectAsOptions{})...)
		w.DisruptionBudget = &agentruntime.DisruptionBudget{MinAvailable: b.MinAvailable.ValueString(), MaxUnavailable: b.MaxUnavailable.ValueString()}
	}
	if !m.Resources.IsNull() && !m.Resources.IsUnknown() {
		var res kubeResourcesModel
		diags.Append(m.Resources.As(ctx, &res, basetypes.ObjectAsOptions{})...)
		w.Resources = agentruntime.Resources{CPURequest: res.CPURequest.ValueString(), MemoryRequest: res.MemoryRequest.ValueString(),
			CPULimit: res.CPULimit.ValueString(), MemoryLimit: res.MemoryLimit.ValueString()}
	}
	if !m.Service.IsNull() && !m.Service.IsUnknown() {
		var svc serviceModel
		diags.Append(m.Service.As(ctx, &svc, basetypes.ObjectAsOptions{})...)
		w.Service = &agentruntime.Service{AppProtocol: svc.AppProtocol.ValueString(), Annotations: stringMapOf(ctx, svc.Annotations, &diags)}
	}
	if !m.Autoscaling.IsNull() && !m.Autoscaling.IsUnknown() {
		var a autoscalingModel
		diags.Append(m.Autoscaling.As(ctx, &a, basetypes.ObjectAsOptions{})...)
		w.Autoscaling = &agentruntime.Autoscaling{MinReplicas: int32(a.MinReplicas.ValueInt64()), MaxReplicas: int32(a.MaxReplicas.ValueInt64()),
			TargetCPUUtilization: int32(a.TargetCPUUtilization.ValueInt64())}
	}
	if !m.Rollout.IsNull() && !m.Rollout.IsUnknown() {
		var ro rolloutModel
		diags.Append(m.Rollout.As(ctx, &ro, basetypes.ObjectAsOptions{})...)
		w.Rollout = &agentruntime.Rollout{MaxSurge: ro.MaxSurge.ValueString(), MaxUnavailable: ro.MaxUnavailable.ValueString()}
	}
	return w, diags
}

// autoscaled reports whether the model hands the agent's count of pods to
// an autoscaler.
func autoscaled(ctx context.Context, m *agentModel) bool {
	w, _ := workloadOf(ctx, m.Kubernetes)
	return w.Autoscaling != nil
}

// planAutoscaledReplicas plans replicas of an autoscaled agent: not the
// configuration's (it may set none) but what the agent runs, its prior
// count, or the autoscaler's least for a new agent.
func planAutoscaledReplicas(ctx context.Context, configured types.Int64, prior, plan *agentModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if !configured.IsNull() {
		diags.AddAttributeError(path.Root("replicas"), "Replicas set with autoscaling",
			"kubernetes.autoscaling hands the agent's number of pods to its autoscaler, and replicas then reads how many it runs: "+
				"remove replicas, or remove autoscaling to set the number yourself.")
		return diags
	}
	w, _ := workloadOf(ctx, plan.Kubernetes)
	switch {
	case prior != nil && !prior.Replicas.IsNull() && !prior.Replicas.IsUnknown():
		plan.Replicas = prior.Replicas
	default:
		plan.Replicas = types.Int64Value(int64(w.Autoscaling.MinReplicas))
	}
	return diags
}

func stringMapOf(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	diags.Append(m.ElementsAs(ctx, &out, false)...)
	return out
}

// workloadObject is the kubernetes attribute of workload w, as an import
// reads it back: what is unset is null.
func workloadObject(w agentruntime.Workload) types.Object {
	if w.IsZero() {
		return types.ObjectNull(workloadType.AttrTypes)
	}
	tolerations := types.ListNull(tolerationType)
	if len(w.Tolerations) > 0 {
		elems := make([]attr.Value, len(w.Tolerations))
		for i, t := range w.Tolerations {
			seconds := types.Int64Null()
			if t.Seconds != nil {
				seconds = types.Int64Value(*t.Seconds)
			}
			elems[i] = types.ObjectValueMust(tolerationType.AttrTypes, map[string]attr.Value{
				"key": optionalString(t.Key), "operator": optionalString(t.Operator), "value": optionalString(t.Value),
				"effect": optionalString(t.Effect), "toleration_seconds": seconds,
			})
		}
		tolerations = types.ListValueMust(tolerationType, elems)
	}
	spread := types.ObjectNull(spreadType.AttrTypes)
	if sp := w.TopologySpread; sp != nil {
		spread = types.ObjectValueMust(spreadType.AttrTypes, map[string]attr.Value{
			"topology_key": types.StringValue(sp.TopologyKey), "when_unsatisfiable": types.StringValue(sp.WhenUnsatisfiable),
			"max_skew": types.Int64Value(int64(sp.MaxSkew)),
		})
	}
	budget := types.ObjectNull(budgetType.AttrTypes)
	if b := w.DisruptionBudget; b != nil {
		budget = types.ObjectValueMust(budgetType.AttrTypes, map[string]attr.Value{
			"min_available": optionalString(b.MinAvailable), "max_unavailable": optionalString(b.MaxUnavailable),
		})
	}
	resources := types.ObjectNull(resourcesType.AttrTypes)
	if res := w.Resources; res != (agentruntime.Resources{}) {
		resources = types.ObjectValueMust(resourcesType.AttrTypes, map[string]attr.Value{
			"cpu_request": optionalString(res.CPURequest), "memory_request": optionalString(res.MemoryRequest),
			"cpu_limit": optionalString(res.CPULimit), "memory_limit": optionalString(res.MemoryLimit),
		})
	}
	service := types.ObjectNull(serviceType.AttrTypes)
	if svc := w.Service; svc != nil {
		service = types.ObjectValueMust(serviceType.AttrTypes, map[string]attr.Value{
			"app_protocol": optionalString(svc.AppProtocol), "annotations": optionalStringMap(svc.Annotations),
		})
	}
	autoscaling := types.ObjectNull(autoscalingType.AttrTypes)
	if a := w.Autoscaling; a != nil {
		autoscaling = types.ObjectValueMust(autoscalingType.AttrTypes, map[string]attr.Value{
			"min_replicas": types.Int64Value(int64(a.MinReplicas)), "max_replicas": types.Int64Value(int64(a.MaxReplicas)),
			"target_cpu_utilization": types.Int64Value(int64(a.TargetCPUUtilization)),
		})
	}
	rollout := types.ObjectNull(rolloutType.AttrTypes)
	if ro := w.Rollout; ro != nil {
		rollout = types.ObjectValueMust(rolloutType.AttrTypes, map[string]attr.Value{
			"max_surge": types.StringValue(ro.MaxSurge), "max_unavailable": types.StringValue(ro.MaxUnavailable),
		})
	}
	return types.ObjectValueMust(workloadType.AttrTypes, map[string]attr.Value{
		"labels": optionalStringMap(w.Labels), "annotations": optionalStringMap(w.Annotations),
		"service_account": optionalString(w.ServiceAccount), "node_selector": optionalStringMap(w.NodeSelector),
		"tolerations": tolerations, "priority_class": optionalString(w.PriorityClass),
		"topology_spread": spread, "disruption_budget": budget, "resources": resources,
		"service": service, "autoscaling": autoscaling, "rollout": rollout,
	})
}

func optionalStringMap(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	return stringMap(m)
}

// checkWorkload refuses a kubernetes attribute the runtime cannot take, at
// the attribute each problem is about.
func checkWorkload(ctx context.Context, rt agentruntime.Runtime, plan *agentModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if rt == nil || plan.Kubernetes.IsNull() {
		return diags
	}
	at := path.Root("kubernetes")
	runner, ok := rt.(agentruntime.WorkloadRunner)
	if !ok {
		diags.AddAttributeError(at, "Kubernetes settings on another adapter",
			fmt.Sprintf("The kubernetes attribute shapes an agent's Deployment and pods on the kubernetes adapter, and this agent runs on "+
				"the %s adapter. Remove it, or run the agent on the kubernetes adapter (a kubernetes block in the provider block).", rt.Identity().Adapter))
		return diags
	}
	w, diags := workloadOf(ctx, plan.Kubernetes)
	for _, p := range runner.CheckWorkload(w) {
		diags.AddAttributeError(problemPath(at, p), "Invalid kubernetes setting", fmt.Sprintf("kubernetes.%s: %s", problemName(p), p.Message))
	}
	return diags
}

// problemPath is the attribute under at that problem p is about.
func problemPath(at path.Path, p agentruntime.WorkloadProblem) path.Path {
	field := at.AtName(p.Field)
	if p.Index >= 0 {
		field = field.AtListIndex(p.Index)
	}
	return field
}

// problemName names that attribute in an error's text, with the element
// of a list it is about: terraform shows the line of the whole attribute,
// which does not tell one toleration from another.
func problemName(p agentruntime.WorkloadProblem) string {
	if p.Index >= 0 {
		return fmt.Sprintf("%s[%d]", p.Field, p.Index)
	}
	return p.Field
}
