package provider

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// readModel reads raw, a resource's plan, state or config under schema, into
// the model target points to: what tfsdk's Get does for a struct of
// attr.Value fields tagged `tfsdk:"<attribute>"`, the same values and the
// same checks, without its reflection. Get works out the struct's fields
// afresh on every call, compiling a regular expression for each, which made
// it most of what the provider's own code spent on a plan over many agents;
// readModel works them out once per model type.
func readModel(ctx context.Context, raw tftypes.Value, schema interface{ Type() attr.Type }, target any) diag.Diagnostics {
	var diags diag.Diagnostics
	model := reflect.ValueOf(target).Elem()
	fields, err := modelFieldsOf(model.Type())
	if err != nil {
		return modelError(model.Type(), err.Error())
	}
	types := schema.Type().(attr.TypeWithAttributeTypes).AttributeTypes()
	var values map[string]tftypes.Value
	if err := raw.As(&values); err != nil {
		diags.AddError("Value Conversion Error", "The provider could not read a value of its schema. This is always an error in the provider: "+err.Error())
		return diags
	}
	if len(values) != len(fields) {
		return modelError(model.Type(), fmt.Sprintf("has %d attributes, its schema %d", len(fields), len(values)))
	}
	for _, f := range fields {
		typ, known := types[f.attribute]
		value, present := values[f.attribute]
		if !known || !present {
			return modelError(model.Type(), fmt.Sprintf("has attribute %q, which its schema does not", f.attribute))
		}
		v, valueDiags := attributeValue(ctx, typ, value, path.Root(f.attribute))
		diags.Append(valueDiags...)
		if diags.HasError() {
			return diags
		}
		field := model.Field(f.index)
		if reflect.TypeOf(v) != field.Type() {
			diags.AddAttributeError(path.Root(f.attribute), "Value Conversion Error",
				fmt.Sprintf("The provider's model holds %s where its schema gives %T. This is always an error in the provider.", field.Type(), v))
			return diags
		}
		field.Set(reflect.ValueOf(v))
	}
	return diags
}

// setModel sets data, a resource's plan or state under schema, to the
// model: what its Set does with a model struct, the same value and the same
// checks, without the reflection readModel also spares.
func setModel(ctx context.Context, data interface {
	Set(context.Context, any) diag.Diagnostics
}, schema interface{ Type() attr.Type }, model any,
) diag.Diagnostics {
	var diags diag.Diagnostics
	m := reflect.ValueOf(model).Elem()
	fields, err := modelFieldsOf(m.Type())
	if err != nil {
		return modelError(m.Type(), err.Error())
	}
	objectType := schema.Type()
	types := objectType.(attr.TypeWithAttributeTypes).AttributeTypes()
	if len(types) != len(fields) {
		return modelError(m.Type(), fmt.Sprintf("has %d attributes, its schema %d", len(fields), len(types)))
	}
	values := make(map[string]tftypes.Value, len(fields))
	for _, f := range fields {
		at := path.Root(f.attribute)
		typ, known := types[f.attribute]
		if !known {
			return modelError(m.Type(), fmt.Sprintf("has attribute %q, which its schema does not", f.attribute))
		}
		v := m.Field(f.index).Interface().(attr.Value)
		if !typ.TerraformType(ctx).Equal(v.Type(ctx).TerraformType(ctx)) {
			diags.AddAttributeError(at, "Value Conversion Error",
				fmt.Sprintf("The provider's model holds a %s where its schema has a %s. This is always an error in the provider.", v.Type(ctx), typ))
			return diags
		}
		value, err := v.ToTerraformValue(ctx)
		if err != nil {
			diags.AddAttributeError(at, "Value Conversion Error", "The provider could not convert a value of its model. This is always an error in the provider: "+err.Error())
			return diags
		}
		diags.Append(checkValue(ctx, typ, v, value, at)...)
		if diags.HasError() {
			return diags
		}
		values[f.attribute] = value
	}
	return append(diags, data.Set(ctx, tftypes.NewValue(objectType.TerraformType(ctx), values))...)
}

// modelError says what keeps a model of the given type from matching its
// schema: a mistake in the provider, not in any configuration.
func modelError(model reflect.Type, problem string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddError("Value Conversion Error", fmt.Sprintf("The provider's model %s %s. This is always an error in the provider.", model, problem))
	return diags
}

// attributeValue converts one attribute's value as the framework does,
// running the checks its type or value defines.
func attributeValue(ctx context.Context, typ attr.Type, value tftypes.Value, at path.Path) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	v, err := typ.ValueFromTerraform(ctx, value)
	if err != nil {
		diags.AddAttributeError(at, "Value Conversion Error", "The provider could not convert a value of its schema. This is always an error in the provider: "+err.Error())
		return nil, diags
	}
	return v, append(diags, checkValue(ctx, typ, v, value, at)...)
}

// checkValue runs the checks the value v, or else its type, defines, on v
// and value, its terraform form: those the framework runs on every value it
// reads or writes.
func checkValue(ctx context.Context, typ attr.Type, v attr.Value, value tftypes.Value, at path.Path) diag.Diagnostics {
	if validateable, ok := v.(xattr.ValidateableAttribute); ok {
		resp := xattr.ValidateAttributeResponse{}
		validateable.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: at}, &resp)
		return resp.Diagnostics
	}
	if validating, ok := typ.(xattr.TypeWithValidate); ok { //nolint:staticcheck // the framework still runs it, so this does too
		return validating.Validate(ctx, value, at)
	}
	return nil
}

// modelField is one field of a model struct and the attribute it holds.
type modelField struct {
	index     int
	attribute string
}

// modelFields caches the fields of each model type read or written so far.
var modelFields sync.Map // reflect.Type -> []modelField

// modelFieldsOf lists the fields of a model struct, every one of which
// must be tagged with the attribute it holds.
func modelFieldsOf(t reflect.Type) ([]modelField, error) {
	if cached, ok := modelFields.Load(t); ok {
		return cached.([]modelField), nil
	}
	if t.Kind() != reflect.Struct {
		return nil, errors.New("is not a struct")
	}
	fields := make([]modelField, t.NumField())
	seen := map[string]bool{}
	for i := range fields {
		f := t.Field(i)
		name := f.Tag.Get("tfsdk")
		if name == "" || name == "-" || !f.IsExported() || seen[name] {
			return nil, fmt.Errorf("has field %s, which holds no attribute of its own: tag it tfsdk:\"<attribute>\"", f.Name)
		}
		seen[name] = true
		fields[i] = modelField{index: i, attribute: name}
	}
	modelFields.Store(t, fields)
	return fields, nil
}
