package agentconfig

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// schema is the shape of a config as the Config type declares it: the keys
// each table takes, in declaration order, and what TOML value each key
// holds. It is read from the toml tags once, so messages about keys can
// never disagree with what Parse accepts.
type schema struct {
	tables map[string][]string // table ("" is the top level) → its keys
	kinds  map[string]string   // dotted key → the TOML value it takes, with article; "table.*" for a map's values
}

var configSchema = sync.OnceValue(func() schema {
	s := schema{tables: map[string][]string{}, kinds: map[string]string{}}
	s.walk("", reflect.TypeFor[Config]())
	return s
})

func (s schema) walk(table string, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		key := join(table, name)
		s.tables[table] = append(s.tables[table], name)
		s.kinds[key] = tomlKind(f.Type)
		if f.Type.Kind() == reflect.Map {
			s.kinds[key+".*"] = tomlKind(f.Type.Elem())
		}
		if inner := tableType(f.Type); inner != nil {
			s.walk(key, inner)
		}
	}
}

// kindOf returns the TOML value key takes, with article, or "" for a key
// the config does not take. A key below a table of free keys (such as
// [runtime] env) takes what that table's values do.
func (s schema) kindOf(key string) string {
	if kind := s.kinds[key]; kind != "" {
		return kind
	}
	return s.kinds[parent(key)+".*"]
}

// tableType returns the struct type a field holds as a table or an array
// of tables, or nil for a plain value.
func tableType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		return t
	}
	return nil
}

func tomlKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return tomlKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Struct, reflect.Map:
		return "a table"
	case reflect.Slice:
		if tableType(t) != nil {
			return "an array of tables"
		}
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(tomlKind(t.Elem()), "an "), "a ") + "s"
	}
	return "a " + t.Kind().String()
}

// unknownKey says that key is not one the config takes, which one was
// likely meant when a key of the same table is close, and what the table
// takes.
func unknownKey(key string) string {
	msg := fmt.Sprintf("unknown key %q: ", key)
	table := holder(key)
	if table == parent(key) {
		name := strings.TrimPrefix(key[len(table):], ".")
		if near := Suggest(name, configSchema().tables[table]); near != "" {
			msg += fmt.Sprintf("did you mean %q? ", near)
		}
	}
	return msg + validKeys(table)
}

// holder returns the table of the schema that holds key, or the nearest
// one above it when key lies below a table the schema does not know.
func holder(key string) string {
	table := parent(key)
	for table != "" && configSchema().tables[table] == nil {
		table = parent(table)
	}
	return table
}

// validKeys describes the keys of table, for a message about an unknown
// key: "[agent] takes name, description, ...".
func validKeys(table string) string {
	s := configSchema()
	names := make([]string, len(s.tables[table]))
	for i, name := range s.tables[table] {
		names[i] = name
		if kind := s.kinds[join(table, name)]; kind == "a table" || kind == "an array of tables" {
			names[i] += " (" + kind[strings.IndexByte(kind, ' ')+1:] + ")"
		}
	}
	where := "the top level takes"
	switch {
	case s.kinds[table] == "an array of tables":
		where = "[[" + table + "]] takes"
	case table != "":
		where = "[" + table + "] takes"
	}
	return where + " " + strings.Join(names, ", ")
}
