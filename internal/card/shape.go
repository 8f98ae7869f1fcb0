package card

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A shape describes what a JSON value in a card must look like. One
// description serves two jobs: checking untrusted cards field by field, and
// dropping default-valued fields before a card is canonicalised for signing,
// so that both agree on which fields a card has.
type shape interface {
	check(v any, at string, c *checker)
	strip(v any) any
	// known returns v with only the properties the model defines for it,
	// so that a decoder reading the result sees exactly what was checked.
	known(v any) any
}

// presence says how a field of a proto message behaves when it holds its
// default value (A2A 1.0 §5.7).
type presence uint8

const (
	// implicit fields (plain scalars, repeated and map fields) are absent
	// when they hold their default value.
	implicit presence = iota
	// explicit fields (the proto `optional` keyword, singular messages)
	// are present whenever they were set, even to a default.
	explicit
	// required fields are always present.
	required
)

type field struct {
	name     string
	shape    shape
	presence presence
	// emptyTolerated marks a required field whose empty value is a
	// deviation rather than a problem (see checker.deviations).
	emptyTolerated bool
	// foreign marks a field the message's own version does not define but
	// the other version does, such as a 0.3 field on a 1.0 card: it is
	// checked as the other version defines it, and reported as a deviation.
	foreign bool
}

// message is a proto message as its JSON object.
type message struct {
	fields []field
	// oneOf names fields of which exactly one must be present, or at least
	// one when anyOf is set.
	oneOf []string
	anyOf bool
	// discriminator names a string property whose value picks one of
	// variants, whose fields are checked in addition to fields.
	discriminator string
	variants      map[string]*message
}

func (m *message) field(name string) (field, bool) {
	for _, f := range m.fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

func (m *message) check(v any, at string, c *checker) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.wrongType(at, "an object", v)
		return
	}
	m.checkFields(obj, at, c)
	if m.discriminator != "" {
		m.checkVariant(obj, at, c)
	}
	if len(m.oneOf) > 0 {
		m.checkOneOf(obj, at, c)
	}
	m.checkUnknown(obj, at, c)
}

// checkUnknown reports the properties of obj that m does not define. One
// that differs from a defined property only in case is a problem: Go's JSON
// decoder, like others, would read it as that property, so that what a
// reader sees would differ from what the strict model checked and a
// signature covered. Any other unknown property, on the card itself or in
// any object of it, is a deviation, so that cards of newer minor versions
// still parse; it is left out of what the card is read as (known).
func (m *message) checkUnknown(obj map[string]any, at string, c *checker) {
	variant := m.variantOf(obj)
	for _, k := range sortedKeys(obj) {
		if _, ok := m.fieldOf(k, variant); ok {
			continue
		}
		path := child(at, k)
		if name, ok := m.caseVariant(k, variant); ok {
			c.add(path, fmt.Sprintf("differs from the property %q only in case: property names are case-sensitive", name))
			continue
		}
		c.deviate(path, "is not defined by A2A "+c.version+"; readers that follow the schema strictly refuse the card. "+
			"Data of the agent's own belongs in capabilities.extensions")
	}
}

// variantOf returns the variant obj's discriminator picks, or nil.
func (m *message) variantOf(obj map[string]any) *message {
	if m.discriminator == "" {
		return nil
	}
	kind, _ := obj[m.discriminator].(string)
	return m.variants[kind]
}

// fieldOf looks a property up in m and in the variant obj is of.
func (m *message) fieldOf(name string, variant *message) (field, bool) {
	if f, ok := m.field(name); ok {
		return f, true
	}
	if variant != nil {
		return variant.field(name)
	}
	return field{}, false
}

// caseVariant returns the defined property name matches but for case.
func (m *message) caseVariant(name string, variant *message) (string, bool) {
	fields := m.fields
	if variant != nil {
		fields = append(slices.Clip(fields), variant.fields...)
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			return f.name, true
		}
	}
	return "", false
}

func (m *message) checkFields(obj map[string]any, at string, c *checker) {
	for _, f := range m.fields {
		v, present := obj[f.name]
		path := child(at, f.name)
		if !present || v == nil {
			if f.presence == required {
				c.add(path, "is required")
			}
			continue
		}
		before := len(c.problems)
		f.shape.check(v, path, c)
		if f.foreign {
			c.deviate(path, "is an A2A "+c.other+" property, which A2A "+c.version+" does not define: readers that follow the "+
				c.version+" schema strictly refuse the card")
			continue
		}
		if f.presence == required && c.requireSet && mustHoldValue(f.shape) && isDefault(v) && len(c.problems) == before {
			if f.emptyTolerated {
				c.deviate(path, "is empty; A2A 1.0 §5.7 asks for a value")
				continue
			}
			c.add(path, "is required and must not be empty")
		}
	}
}

func (m *message) checkVariant(obj map[string]any, at string, c *checker) {
	path := child(at, m.discriminator)
	kind, ok := obj[m.discriminator].(string)
	if !ok {
		// The discriminator's own field reports it missing or mistyped.
		return
	}
	variant, ok := m.variants[kind]
	if !ok {
		c.add(path, fmt.Sprintf("is %q, not one of %s", kind, quotedKeys(m.variants)))
		return
	}
	variant.checkFields(obj, at, c)
}

func (m *message) checkOneOf(obj map[string]any, at string, c *checker) {
	var set []string
	for _, name := range m.oneOf {
		if v, ok := obj[name]; ok && v != nil {
			set = append(set, name)
		}
	}
	switch {
	case len(set) == 1, len(set) > 1 && m.anyOf:
	case len(set) == 0 && m.anyOf:
		c.add(at, "must hold at least one of "+strings.Join(m.oneOf, ", "))
	case len(set) == 0:
		c.add(at, "must hold exactly one of "+strings.Join(m.oneOf, ", "))
	default:
		c.add(at, "must hold exactly one of "+strings.Join(m.oneOf, ", ")+", not "+strings.Join(set, " and "))
	}
}

// strip drops default-valued fields the way §8.4.1 asks before signing.
// Properties the model does not know are kept unless they hold a default,
// since a conforming signer would have dropped them too.
func (m *message) strip(v any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if m.discriminator != "" {
		if kind, ok := obj[m.discriminator].(string); ok && m.variants[kind] != nil {
			return m.variants[kind].stripWith(obj, m)
		}
	}
	return m.stripWith(obj, nil)
}

func (m *message) stripWith(obj map[string]any, base *message) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		f, known := m.field(k)
		if !known && base != nil {
			f, known = base.field(k)
		}
		switch {
		case !known:
			if v != nil && !isDefault(v) {
				out[k] = v
			}
		case v == nil && f.presence != required:
		case f.presence == implicit && isDefault(v):
		default:
			out[k] = f.shape.strip(v)
		}
	}
	return out
}

func (m *message) known(v any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	variant := m.variantOf(obj)
	out := make(map[string]any, len(obj))
	for k, e := range obj {
		if f, ok := m.fieldOf(k, variant); ok && !f.foreign {
			out[k] = f.shape.known(e)
		}
	}
	return out
}

type stringShape struct{}

func (stringShape) check(v any, at string, c *checker) {
	if _, ok := v.(string); !ok {
		c.wrongType(at, "a string", v)
	}
}
func (stringShape) strip(v any) any { return v }
func (stringShape) known(v any) any { return v }

type boolShape struct{}

func (boolShape) check(v any, at string, c *checker) {
	if _, ok := v.(bool); !ok {
		c.wrongType(at, "true or false", v)
	}
}
func (boolShape) strip(v any) any { return v }
func (boolShape) known(v any) any { return v }

// objectShape is any JSON object (google.protobuf.Struct): free-form data
// whose content the card model does not describe.
type objectShape struct{}

func (objectShape) check(v any, at string, c *checker) {
	if _, ok := v.(map[string]any); !ok {
		c.wrongType(at, "an object", v)
	}
}
func (objectShape) strip(v any) any { return v }
func (objectShape) known(v any) any { return v }

type listShape struct{ elem shape }

func (s listShape) check(v any, at string, c *checker) {
	list, ok := v.([]any)
	if !ok {
		c.wrongType(at, "an array", v)
		return
	}
	for i, e := range list {
		path := at + "[" + strconv.Itoa(i) + "]"
		if e == nil {
			c.add(path, "must not be null")
			continue
		}
		s.elem.check(e, path, c)
	}
}

func (s listShape) strip(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = s.elem.strip(e)
	}
	return out
}

func (s listShape) known(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = s.elem.known(e)
	}
	return out
}

type mapShape struct{ elem shape }

func (s mapShape) check(v any, at string, c *checker) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.wrongType(at, "an object", v)
		return
	}
	for _, k := range sortedKeys(obj) {
		path := child(at, k)
		if obj[k] == nil {
			c.add(path, "must not be null")
			continue
		}
		s.elem.check(obj[k], path, c)
	}
}

func (s mapShape) strip(v any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(obj))
	for k, e := range obj {
		out[k] = s.elem.strip(e)
	}
	return out
}

func (s mapShape) known(v any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(obj))
	for k, e := range obj {
		out[k] = s.elem.known(e)
	}
	return out
}

// scopesShape is the scope list of one scheme in a security requirement.
// The proto encodes it as a StringList object, {"list": [...]}; the official
// Go SDK writes a bare array. Both are read, so that cards from either parse.
type scopesShape struct{ list *message }

func (s scopesShape) check(v any, at string, c *checker) {
	if _, ok := v.([]any); ok {
		listShape{stringShape{}}.check(v, at, c)
		return
	}
	if _, ok := v.(map[string]any); !ok {
		c.wrongType(at, `an object {"list": [...]}`, v)
		return
	}
	s.list.check(v, at, c)
}

func (s scopesShape) strip(v any) any {
	if _, ok := v.(map[string]any); ok {
		return s.list.strip(v)
	}
	return v
}

func (s scopesShape) known(v any) any {
	if _, ok := v.(map[string]any); ok {
		return s.list.known(v)
	}
	return v
}

// checker collects every problem of a card rather than stopping at the first.
type checker struct {
	// version is the protocol version the card is read as, and other the
	// one whose properties it may carry too (see field.foreign).
	version, other string
	// requireSet makes an empty required value a problem, as A2A 1.0 asks
	// (§5.7: required fields must be set, required arrays non-empty). The
	// 0.3 schema only asks for presence.
	requireSet bool
	problems   []Problem
	// deviations leave the card usable: empty required values that the
	// specification itself shows as valid (its own signing example, §8.4.1,
	// has "description": "" and "skills": [], and the official SDK's
	// reference agents publish such cards), and properties the card's
	// version does not define, such as the 0.3 fields the official SDK
	// writes beside the 1.0 ones. Rejecting them would call those agents
	// unhealthy, so they are reported, not refused.
	deviations []Problem
}

func (c *checker) add(path, msg string) {
	c.problems = append(c.problems, Problem{Path: path, Message: msg})
}

func (c *checker) deviate(path, msg string) {
	c.deviations = append(c.deviations, Problem{Path: path, Message: msg})
}

func (c *checker) wrongType(at, want string, got any) {
	c.add(at, fmt.Sprintf("must be %s, not %s", want, jsonType(got)))
}

// mustHoldValue says whether a required field of this shape is unset when it
// holds its default (§5.7): a string must not be empty and a list must have
// an element, while a message or map is set by being present.
func mustHoldValue(s shape) bool {
	switch s.(type) {
	case stringShape, listShape:
		return true
	}
	return false
}

func isDefault(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case bool:
		return !t
	case json.Number:
		f, err := t.Float64()
		return err == nil && f == 0
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// child extends a JSON path: $.a.b for plain keys, $.a["odd key"] otherwise.
func child(at, key string) string {
	if plainKey.MatchString(key) {
		return at + "." + key
	}
	return at + "[" + strconv.Quote(key) + "]"
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quotedKeys(m map[string]*message) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(k))
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
