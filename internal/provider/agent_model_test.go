package provider

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestAgentModelSameAs changes each field of a model in turn: a change of
// any one must count, or a refresh or plan would drop it by keeping what
// it was given.
func TestAgentModelSameAs(t *testing.T) {
	unknownOf := map[reflect.Type]attr.Value{
		reflect.TypeFor[types.String](): types.StringUnknown(),
		reflect.TypeFor[types.Int64]():  types.Int64Unknown(),
		reflect.TypeFor[types.Bool]():   types.BoolUnknown(),
		reflect.TypeFor[types.List]():   types.ListUnknown(types.StringType),
		reflect.TypeFor[types.Map]():    types.MapUnknown(types.StringType),
		reflect.TypeFor[types.Object](): types.ObjectUnknown(workloadType.AttrTypes),
		reflect.TypeFor[timeouts.Value](): timeouts.Value{Object: types.ObjectUnknown(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType,
		})},
	}
	// Null everywhere, as a model read from a plan may be; collections
	// carry their element type.
	base := agentModel{InjectedEnv: types.ListNull(types.StringType), EnvWO: types.MapNull(types.StringType), Settings: types.MapNull(types.StringType),
		Kubernetes: types.ObjectNull(workloadType.AttrTypes)}
	if same := base; !same.sameAs(&base) {
		t.Fatal("a model is not the same as its copy")
	}
	fields := reflect.TypeFor[agentModel]()
	for i := range fields.NumField() {
		field := fields.Field(i)
		t.Run(field.Name, func(t *testing.T) {
			unknown, ok := unknownOf[field.Type]
			if !ok {
				t.Fatalf("no value of type %s to change field %s to", field.Type, field.Name)
			}
			changed := base
			reflect.ValueOf(&changed).Elem().Field(i).Set(reflect.ValueOf(unknown))
			if changed.sameAs(&base) || base.sameAs(&changed) {
				t.Errorf("a model whose %s changed counts as the same", field.Name)
			}
		})
	}
}
