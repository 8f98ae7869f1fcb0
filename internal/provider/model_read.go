package provider

import (
	"context"
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
		diags.AddError("Value Conversion Error", "The provider could not read its model. This is always an error in the provider: "+err.Error())
		return diags
	}
	types := schema.Type().(attr.TypeWithAttributeTypes).AttributeTypes()
	var values map[string]tftypes.Value
	if err := raw.As(&values); err != nil {
		diags.AddError("Value Conversion Error", "The provider could not read a value of its schema. This is always an error in the provider: "+err.Error())
		return diags
	}
	if len(values) != len(fields) {
		diags.AddError("Value Conversion Error", fmt.Sprintf("The provider's model %s has %d attributes, its schema %d. This is always an error in the provider.",
			model.Type(), len(fields), len(values)))
		return diags
	}
	for _, f := range fields {
		typ, known := types[f.attribute]
		value, present := values[f.attribute]
		if !known || !present {
			diags.AddError("Value Conversion Error", fmt.Sprintf("The provider's model %s has attribute %q, which its schema does not. This is always an error in the provider.",
				model.Type(), f.attribute))
			return diags
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

// attributeValue converts one attribute's value as the framework does,
// running the checks its type or value defines.
func attributeValue(ctx context.Context, typ attr.Type, value tftypes.Value, at path.Path) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	v, err := typ.ValueFromTerraform(ctx, value)
	if err != nil {
		diags.AddAttributeError(at, "Value Conversion Error", "The provider could not convert a value of its schema. This is always an error in the provider: "+err.Error())
		return nil, diags
	}
	if validateable, ok := v.(xattr.ValidateableAttribute); ok {
		resp := xattr.ValidateAttributeResponse{}
		validateable.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: at}, &resp)
		diags.Append(resp.Diagnostics...)
	} else if validating, ok := typ.(xattr.TypeWithValidate); ok { //nolint:staticcheck // the framework still runs it, so this does too
		diags.Append(validating.Validate(ctx, value, at)...)
	}
	return v, diags
}

// modelField is one field of a model struct and the attribute it holds.
type modelField struct {
	index     int
	attribute string
}

// modelFields caches the fields of each model type read so far.
var modelFields sync.Map // reflect.Type -> []modelField

// modelFieldsOf lists the fields of a model struct, every one of which
// must be tagged with the attribute it holds.
func modelFieldsOf(t reflect.Type) ([]modelField, error) {
	if cached, ok := modelFields.Load(t); ok {
		return cached.([]modelField), nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	fields := make([]modelField, t.NumField())
	seen := map[string]bool{}
	for i := range fields {
		f := t.Field(i)
		name := f.Tag.Get("tfsdk")
		if name == "" || name == "-" || !f.IsExported() || seen[name] {
			return nil, fmt.Errorf("field %s of %s holds no attribute of its own: tag it tfsdk:\"<attribute>\"", f.Name, t)
		}
		seen[name] = true
		fields[i] = modelField{index: i, attribute: name}
	}
	modelFields.Store(t, fields)
	return fields, nil
}
