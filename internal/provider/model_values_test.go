package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// agentPlan is a plan of the agent schema holding m.
func agentPlan(t *testing.T, m agentModel) tfsdk.Plan {
	t.Helper()
	ctx := context.Background()
	var resp resource.SchemaResponse
	(&agentResource{}).Schema(ctx, resource.SchemaRequest{}, &resp)
	plan := tfsdk.Plan{Schema: resp.Schema}
	if diags := plan.Set(ctx, m); diags.HasError() {
		t.Fatalf("set the plan: %v", diags)
	}
	return plan
}

var timeoutTypes = map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType}

// nullAgentModel is an agent model of null values.
func nullAgentModel() agentModel {
	return agentModel{
		EnvWO: types.MapNull(types.StringType), InjectedEnv: types.ListNull(types.StringType), Settings: types.MapNull(types.StringType),
		Timeouts: timeouts.Value{Object: types.ObjectNull(timeoutTypes)}, Kubernetes: types.ObjectNull(workloadType.AttrTypes),
	}
}

// sampleAgentModels are agent models of known, unknown and null values.
func sampleAgentModels() map[string]agentModel {
	known := agentModel{
		ID: types.StringValue("echo-agent"), Name: types.StringValue("Echo Agent"), Config: types.StringValue("[agent]\nname = \"Echo Agent\"\n"),
		EnvAllowlist: types.StringValue("team"), EnvWO: types.MapNull(types.StringType), EnvWOVersion: types.Int64Value(3),
		Running: types.BoolValue(true), Replicas: types.Int64Value(1), WaitForHealthy: types.BoolValue(false),
		Timeouts: timeouts.Value{Object: types.ObjectValueMust(timeoutTypes, map[string]attr.Value{
			"create": types.StringValue("5m"), "update": types.StringNull(), "delete": types.StringUnknown(),
		})},
		Endpoint: types.StringValue("http://127.0.0.1:8080/"), CardURL: types.StringValue("http://127.0.0.1:8080/.well-known/agent-card.json"),
		Port: types.Int64Value(8080), Health: types.StringValue("healthy"), ConfigSHA256: types.StringValue("ab"),
		InjectedEnv: stringList([]string{"A", "B"}), Instance: types.StringValue("42"), Settings: stringMap(map[string]string{"x": "y"}),
		Kubernetes: workloadObject(agentruntime.Workload{
			Labels: map[string]string{"team": "search"}, Tolerations: []agentruntime.Toleration{{Key: "dedicated", Operator: "Exists"}},
			Autoscaling: &agentruntime.Autoscaling{MinReplicas: 2, MaxReplicas: 3, TargetCPUUtilization: 50},
		}),
	}
	unknown := agentModel{
		ID: types.StringUnknown(), Name: types.StringUnknown(), Config: types.StringUnknown(), EnvAllowlist: types.StringUnknown(),
		EnvWO: types.MapUnknown(types.StringType), EnvWOVersion: types.Int64Unknown(), Running: types.BoolUnknown(),
		Replicas: types.Int64Unknown(), WaitForHealthy: types.BoolUnknown(), Timeouts: timeouts.Value{Object: types.ObjectUnknown(timeoutTypes)},
		Endpoint: types.StringUnknown(), CardURL: types.StringUnknown(), Port: types.Int64Unknown(), Health: types.StringUnknown(),
		ConfigSHA256: types.StringUnknown(), InjectedEnv: types.ListUnknown(types.StringType), Instance: types.StringUnknown(),
		Settings: types.MapUnknown(types.StringType), Kubernetes: types.ObjectUnknown(workloadType.AttrTypes),
	}
	return map[string]agentModel{"known": known, "unknown": unknown, "null": nullAgentModel()}
}

// TestReadModelAsGet reads models of known, null and unknown values, and
// expects what the framework's Get reads.
func TestReadModelAsGet(t *testing.T) {
	ctx := context.Background()
	for name, m := range sampleAgentModels() {
		t.Run(name, func(t *testing.T) {
			plan := agentPlan(t, m)
			var want, got agentModel
			if diags := plan.Get(ctx, &want); diags.HasError() {
				t.Fatalf("Get: %v", diags)
			}
			if diags := readModel(ctx, plan.Raw, plan.Schema, &got); diags.HasError() {
				t.Fatalf("readModel: %v", diags)
			}
			if !got.sameAs(&want) || !got.sameAs(&m) {
				t.Errorf("readModel read\n%+v\nGet read\n%+v", got, want)
			}
		})
	}
}

// TestReadModelRefusesAnotherShape refuses, as Get does, a model that does
// not hold exactly the schema's attributes, in their types.
func TestReadModelRefusesAnotherShape(t *testing.T) {
	ctx := context.Background()
	plan := agentPlan(t, nullAgentModel())
	type fewer struct {
		ID types.String `tfsdk:"id"`
	}
	if diags := readModel(ctx, plan.Raw, plan.Schema, &fewer{}); !diags.HasError() {
		t.Error("a model of fewer attributes than the schema was read")
	}
	if diags := readModel(ctx, plan.Raw, plan.Schema, &envAllowlistModel{}); !diags.HasError() {
		t.Error("a model of other attributes than the schema was read")
	}
	// The agent's model, but for an id of another type.
	fields := reflect.VisibleFields(reflect.TypeFor[agentModel]())
	fields[0].Type = reflect.TypeFor[types.Int64]()
	mistyped := reflect.New(reflect.StructOf(fields)).Interface()
	if diags := readModel(ctx, plan.Raw, plan.Schema, mistyped); !diags.HasError() {
		t.Error("a model holding an attribute in another type was read")
	}
	type untagged struct {
		ID types.String
	}
	if _, err := modelFieldsOf(reflect.TypeFor[untagged]()); err == nil {
		t.Error("a field without a tag was taken")
	}
}

// TestSetModelAsSet writes models of known, null and unknown values, and
// expects what the framework's Set writes.
func TestSetModelAsSet(t *testing.T) {
	ctx := context.Background()
	for name, m := range sampleAgentModels() {
		t.Run(name, func(t *testing.T) {
			want := agentPlan(t, m)
			got := tfsdk.Plan{Schema: want.Schema}
			if diags := setModel(ctx, &got, got.Schema, &m); diags.HasError() {
				t.Fatalf("setModel: %v", diags)
			}
			if !got.Raw.Equal(want.Raw) {
				t.Errorf("setModel wrote\n%s\nSet wrote\n%s", got.Raw, want.Raw)
			}
		})
	}
}

// TestSetModelRefusesAnotherShape refuses, as Set does, a model that does
// not hold exactly the schema's attributes, in their types, and leaves the
// plan as it was.
func TestSetModelRefusesAnotherShape(t *testing.T) {
	ctx := context.Background()
	plan := agentPlan(t, nullAgentModel())
	before := plan.Raw
	if diags := setModel(ctx, &plan, plan.Schema, &envAllowlistModel{}); !diags.HasError() {
		t.Error("a model of other attributes than the schema was written")
	}
	mistyped := sampleAgentModels()["known"]
	mistyped.InjectedEnv = types.ListValueMust(types.BoolType, []attr.Value{types.BoolValue(true)})
	if diags := setModel(ctx, &plan, plan.Schema, &mistyped); !diags.HasError() {
		t.Error("a model holding an attribute in another type was written")
	}
	if !plan.Raw.Equal(before) {
		t.Error("a refused model changed the plan")
	}
}
