package cardschema

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

//go:embed a2a-1.0.1.proto
var proto10 []byte

// protoField is one field of a proto message, as the proto declares it.
type protoField struct {
	jsonName string
	typ      string // a scalar type or a message name
	repeated bool
	mapValue bool // a map field; typ is the value type
	required bool
}

var (
	messageLine = regexp.MustCompile(`^message (\w+) \{`)
	fieldLine   = regexp.MustCompile(`^\s+(optional |repeated )?(map<\w+, *([\w.]+)>|[\w.]+) (\w+) = \d+( \[.*\])?;`)
)

// protoMessages reads every message of the 1.0 proto with its fields. The
// proto is plain enough (top-level messages, one field a line, oneofs as
// fields of their message) for a line scanner, which needs none of the
// google/api imports a full proto compiler would have to resolve.
var protoMessages = sync.OnceValue(func() map[string][]protoField {
	messages := map[string][]protoField{}
	var current string
	sc := bufio.NewScanner(bytes.NewReader(proto10))
	for sc.Scan() {
		line := sc.Text()
		if m := messageLine.FindStringSubmatch(line); m != nil {
			current = m[1]
			messages[current] = nil
			continue
		}
		if line == "}" {
			current = ""
			continue
		}
		m := fieldLine.FindStringSubmatch(line)
		if current == "" || m == nil {
			continue
		}
		f := protoField{jsonName: lowerCamel(m[4]), typ: m[2], repeated: m[1] == "repeated ",
			required: strings.Contains(m[5], "REQUIRED")}
		if m[3] != "" {
			f.typ, f.mapValue = m[3], true
		}
		messages[current] = append(messages[current], f)
	}
	return messages
})

// lowerCamel is the JSON name ProtoJSON gives a proto field name.
func lowerCamel(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// MissingRequired returns, by JSON path, every field the A2A 1.0 proto
// marks REQUIRED that cardJSON leaves out or empty, in the card and every
// message nested in it: the rule the 1.0 JSON schema, which has no required
// lists, does not carry.
func MissingRequired(cardJSON []byte) ([]string, error) {
	var card map[string]any
	if err := json.Unmarshal(cardJSON, &card); err != nil {
		return nil, fmt.Errorf("decode card: %w", err)
	}
	messages := protoMessages()
	if len(messages["AgentCard"]) == 0 {
		return nil, fmt.Errorf("the embedded proto declares no AgentCard fields")
	}
	var missing []string
	var walk func(msg string, obj map[string]any, at string)
	walk = func(msg string, obj map[string]any, at string) {
		for _, f := range messages[msg] {
			v, ok := obj[f.jsonName]
			path := at + "." + f.jsonName
			if f.required && (!ok || isEmpty(v)) {
				missing = append(missing, path)
			}
			if _, nested := messages[f.typ]; !nested || !ok {
				continue
			}
			switch {
			case f.mapValue:
				m, _ := v.(map[string]any)
				for k, e := range m {
					if eo, ok := e.(map[string]any); ok {
						walk(f.typ, eo, fmt.Sprintf("%s[%q]", path, k))
					}
				}
			case f.repeated:
				list, _ := v.([]any)
				for i, e := range list {
					if eo, ok := e.(map[string]any); ok {
						walk(f.typ, eo, fmt.Sprintf("%s[%d]", path, i))
					}
				}
			default:
				if eo, ok := v.(map[string]any); ok {
					walk(f.typ, eo, path)
				}
			}
		}
	}
	walk("AgentCard", card, "$")
	sort.Strings(missing)
	return missing, nil
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	}
	return false
}
