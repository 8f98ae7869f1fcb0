package agentconfig

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// maxTypeProblems bounds the values of the wrong type one parse reports:
// each costs a decode of the whole document.
const maxTypeProblems = 20

// decoded is what decoding a config found.
type decoded struct {
	problems []Problem // located
	// blanked are the keys whose values were left out of the decoded
	// config for being of the wrong type, named as Problem.Key is, so that
	// validation does not report them missing.
	blanked []string
	// complete says the decoder read the whole document, so the config
	// holds every value of the right type and can be validated.
	complete bool
}

// decode decodes raw into cfg strictly, finding every unknown key and every
// value of the wrong type in one run. Unknown keys all come in the
// decoder's one error at the end. A value of the wrong type stops the
// decoder, so the expression holding it is overwritten with blanks (offsets
// kept, so that later positions stay true) and the document decoded again.
// A syntax error stops decoding for good: the parser cannot know where the
// broken expression ends, so nothing after it can be read.
func decode(raw []byte, cfg *Config) decoded {
	var d decoded
	doc := raw
	for {
		*cfg = Config{}
		err := toml.NewDecoder(bytes.NewReader(doc)).DisallowUnknownFields().Decode(cfg)
		var strict *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case err == nil:
			d.complete = true
			return d
		case errors.As(err, &strict):
			for _, e := range strict.Errors {
				row, col := e.Position()
				key := strings.Join(e.Key(), ".")
				d.problems = append(d.problems, Problem{Key: key, Line: row, Column: col, Message: unknownKey(key)})
			}
			d.complete = true
			return d
		case errors.As(err, &de) && !typeMismatch.MatchString(decoderMessage(de)):
			d.problems = append(d.problems, decodeProblem(de, ""))
			return d
		case errors.As(err, &de):
			row, col := de.Position()
			next, key, inner := blank(doc, offsetOf(doc, row, col))
			d.problems = append(d.problems, decodeProblem(de, inner))
			if len(d.blanked) == maxTypeProblems {
				d.problems = append(d.problems, Problem{Message: fmt.Sprintf(
					"%d values of the wrong type found, and the rest of the config not checked: fix these and check it again", maxTypeProblems+1)})
				return d
			}
			if next == nil {
				return d
			}
			doc, d.blanked = next, append(d.blanked, key)
		default:
			d.problems = append(d.problems, Problem{Message: err.Error()})
			return d
		}
	}
}

// typeMismatch matches the decoder's messages for a value of the wrong
// type, which name Go types; the TOML words replace them. A table header
// where a value belongs gets the second form.
var typeMismatch = regexp.MustCompile(`^cannot (?:decode TOML ([a-z ]+?) into |store an? ([a-z ]+?) in )`)

func decoderMessage(de *toml.DecodeError) string { return strings.TrimPrefix(de.Error(), "toml: ") }

// decodeProblem turns a decoder error other than unknown keys into a
// located problem, in the config's words rather than Go's. The decoder
// names the key of the whole expression, which for a value within an
// inline table is the table; inner, when known, is the key of the value
// itself.
func decodeProblem(de *toml.DecodeError, inner string) Problem {
	row, col := de.Position()
	key := strings.Join(de.Key(), ".")
	msg := decoderMessage(de)
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		if inner != "" {
			key = inner
		}
		if kind := configSchema().kindOf(key); kind != "" {
			got := m[1] + m[2]
			if got == "array table" {
				got = "array of tables"
			}
			msg = fmt.Sprintf("expected %s, got %s %s", kind, article(got), got)
		}
	}
	if key != "" {
		msg = key + ": " + msg
	}
	return Problem{Key: key, Line: row, Column: col, Message: msg}
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// blank returns a copy of doc with the top-level expression at offset
// overwritten with spaces, newlines kept, and the key that expression
// sets; a table header goes with the keys below it, which would otherwise
// land in the table before. A value nested in an inline table or array
// takes the whole expression with it, since blanking part of one would
// break its syntax; inner is then the key of the nested value. It returns
// nil when no expression holds offset. Key is named as Problem.Key is,
// inner without element indexes, as the decoder names keys.
func blank(doc []byte, offset int) (out []byte, key, inner string) {
	// The index names tables as Problem.Key does, elements indexed, so
	// that only the element of an array of tables that lost a value
	// shadows validation's problems.
	idx := &keyIndex{offsets: map[string]uint32{}, arrays: map[string]int{}}
	idx.parser.Reset(doc)
	out = append([]byte(nil), doc...)
	wipe := func(from, to int) {
		for i := from; i < to && i < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	table := ""
	inBlanked := false
	for idx.parser.NextExpression() {
		expr := idx.parser.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			if inBlanked {
				return out, key, elementIndex.ReplaceAllString(key, "")
			}
			table = idx.header(expr)
			start, end := -1, 0
			for it := expr.Key(); it.Next(); {
				seg := it.Node()
				if start < 0 {
					start = int(seg.Raw.Offset)
				}
				end = int(seg.Raw.Offset + seg.Raw.Length)
			}
			if offset >= start && offset < end {
				lineEnd := bytes.IndexByte(doc[end:], '\n')
				if lineEnd < 0 {
					lineEnd = len(doc) - end
				}
				wipe(int(bracketBefore(doc, uint32(start))), end+lineEnd)
				key, inBlanked = table, true
			}
		case unstable.KeyValue:
			if inBlanked {
				wipe(int(expr.Raw.Offset), int(expr.Raw.Offset+expr.Raw.Length))
				continue
			}
			if holds(expr, offset) {
				wipe(int(expr.Raw.Offset), int(expr.Raw.Offset+expr.Raw.Length))
				key = keyOf(table, expr)
				return out, key, elementIndex.ReplaceAllString(innermost(key, expr.Value(), offset), "")
			}
		}
	}
	if inBlanked {
		return out, key, elementIndex.ReplaceAllString(key, "")
	}
	return nil, "", ""
}

func holds(kv *unstable.Node, offset int) bool {
	return offset >= int(kv.Raw.Offset) && offset < int(kv.Raw.Offset+kv.Raw.Length)
}

func keyOf(table string, kv *unstable.Node) string {
	for it := kv.Key(); it.Next(); {
		table = join(table, string(it.Node().Data))
	}
	return table
}

// innermost returns the key of the value at offset within v, the value of
// key: the key itself unless v is, or is an array of, inline tables.
func innermost(key string, v *unstable.Node, offset int) string {
	for it := v.Children(); it.Next(); {
		child := it.Node()
		switch {
		case child.Kind == unstable.KeyValue && holds(child, offset):
			return innermost(keyOf(key, child), child.Value(), offset)
		case child.Kind == unstable.InlineTable:
			if inner := innermost(key, child, offset); inner != key {
				return inner
			}
		}
	}
	return key
}

// offsetOf turns the decoder's line and column (bytes, from 1) into an
// offset in doc.
func offsetOf(doc []byte, line, column int) int {
	offset := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(doc[offset:], '\n')
		if i < 0 {
			break
		}
		offset += i + 1
	}
	return offset + column - 1
}

// shadowedBy reports whether a problem with key follows from the value of
// a blanked key being left out: the key itself, one below it, or a table
// above it (a table missing a key it needs).
func shadowedBy(key string, blanked []string) bool {
	for _, b := range blanked {
		if key == b || below(key, b) || below(b, key) {
			return true
		}
	}
	return false
}

// below reports whether key lies within table: "skills[1].id" within
// "skills[1]" and within "skills".
func below(key, table string) bool {
	return strings.HasPrefix(key, table+".") || strings.HasPrefix(key, table+"[")
}

var elementIndex = regexp.MustCompile(`\[\d+\]`)
