package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// MaxCardBytes bounds a card read from an agent: a card is a few kilobytes,
// and an untrusted peer must not be able to exhaust memory.
const MaxCardBytes = 1 << 20

// Spec versions Parse reports.
const (
	SpecVersion10 = "1.0"
	SpecVersion03 = "0.3"
)

// Parsed is a card read from untrusted bytes.
type Parsed struct {
	// Card is the card in the A2A 1.0 model, whatever version it was
	// written in: a 0.3 card's url and preferredTransport become its first
	// supported interface.
	Card *a2a.AgentCard
	// SpecVersion is the version the card was written in: "1.0" or "0.3".
	SpecVersion string
	// Raw is the bytes the card was parsed from, as given.
	Raw []byte
	// Deviations are departures from the specification that leave the card
	// usable, such as an empty skills list: worth a warning, not a refusal.
	Deviations []Problem
}

// Problem is one thing wrong with a card, at a JSON path such as
// $.skills[2].id.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string { return p.Path + " " + p.Message }

// ValidationError lists every problem found in a card.
type ValidationError struct {
	SpecVersion string
	Problems    []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	what := "agent card"
	if e.SpecVersion != "" {
		what = "A2A " + e.SpecVersion + " agent card"
	}
	return fmt.Sprintf("invalid %s (%d problems): %s", what, len(e.Problems), strings.Join(parts, "; "))
}

// Parse reads an A2A 1.0 or 0.3 agent card strictly. Every missing required
// field, empty required value, value of the wrong type, property that
// matches a defined one only but for case, and duplicate property is
// reported at once in a *ValidationError. What leaves the card usable is
// reported in Parsed.Deviations instead, each at its JSON path: an empty
// description or skills list, the 0.3 fields on a 1.0 card, and any other
// property, at the top or nested, that the card's version does not define,
// which is then ignored. The card is decoded from the defined properties
// only, so that no decoder's leniency (such as Go's case-insensitive field
// names) reads anything the checks did not see. A card that has
// supportedInterfaces is read as 1.0; one that has only the 0.3 fields
// (url, protocolVersion, preferredTransport, additionalInterfaces) as 0.3.
func Parse(raw []byte) (*Parsed, error) {
	if len(raw) > MaxCardBytes {
		return nil, &ValidationError{Problems: []Problem{{Path: "$",
			Message: fmt.Sprintf("is %d bytes, more than the %d an agent card may have", len(raw), MaxCardBytes)}}}
	}
	tree, err := decodeTree(raw)
	var dup *duplicateError
	switch {
	case errors.As(err, &dup):
		return nil, &ValidationError{Problems: []Problem{{Path: dup.path, Message: "is given twice: a property may appear once in an object"}}}
	case err != nil:
		return nil, &ValidationError{Problems: []Problem{{Path: "$", Message: err.Error()}}}
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, &ValidationError{Problems: []Problem{{Path: "$", Message: "must be a JSON object, not " + jsonType(tree)}}}
	}
	version := detectVersion(obj)
	model, c := card10, &checker{version: SpecVersion10, other: SpecVersion03, requireSet: true}
	if version == SpecVersion03 {
		model, c = card03, &checker{version: SpecVersion03, other: SpecVersion10}
	}
	model.check(obj, "$", c)
	if len(c.problems) > 0 {
		return nil, &ValidationError{SpecVersion: version, Problems: c.problems}
	}
	card, err := convert(model.known(obj).(map[string]any), version)
	if err != nil {
		return nil, &ValidationError{SpecVersion: version, Problems: []Problem{{Path: "$", Message: err.Error()}}}
	}
	slices.SortStableFunc(c.deviations, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return &Parsed{Card: card, SpecVersion: version, Raw: raw, Deviations: c.deviations}, nil
}

// decodeTree decodes one JSON value, keeping numbers as written. An object
// that names a property twice is refused (a *duplicateError): decoders
// disagree on which of the two counts (Go's takes the last), so a card with
// both could be checked and signed as one thing and read as another.
func decodeTree(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tree, err := decodeValue(dec, "$", 0)
	var dup *duplicateError
	switch {
	case errors.Is(err, io.EOF):
		return nil, errors.New("is empty, not a JSON object")
	case errors.As(err, &dup):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("has data after the JSON object, at byte %d", dec.InputOffset())
	}
	return tree, nil
}

// maxDepth bounds how deeply a card's values nest: a card needs a handful
// of levels, and an untrusted peer must not make the decoder recurse
// without bound.
const maxDepth = 64

// duplicateError names a property an object of the card gives twice.
type duplicateError struct{ path string }

func (e *duplicateError) Error() string {
	return e.path + " is given twice: a property may appear once in an object"
}

func decodeValue(dec *json.Decoder, at string, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // a string, json.Number, bool or nil
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("%s nests deeper than the %d levels an agent card may have", at, maxDepth)
	}
	if delim == '[' {
		list := []any{}
		for dec.More() {
			v, err := decodeValue(dec, at+"["+strconv.Itoa(len(list))+"]", depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	obj := map[string]any{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := key.(string)
		path := child(at, name)
		if _, seen := obj[name]; seen {
			return nil, &duplicateError{path: path}
		}
		if obj[name], err = decodeValue(dec, path, depth+1); err != nil {
			return nil, err
		}
	}
	_, err = dec.Token()
	return obj, err
}

func detectVersion(obj map[string]any) string {
	if _, ok := obj["supportedInterfaces"]; ok {
		return SpecVersion10
	}
	for _, k := range []string{"url", "protocolVersion", "preferredTransport", "additionalInterfaces"} {
		if _, ok := obj[k]; ok {
			return SpecVersion03
		}
	}
	return SpecVersion10
}

// convert turns a checked card into the SDK model. The SDK reads security
// requirement scopes as bare arrays, so the proto's StringList objects are
// unwrapped first; a 0.3 card is first rewritten in the 1.0 shape.
func convert(obj map[string]any, version string) (*a2a.AgentCard, error) {
	if version == SpecVersion03 {
		obj = upgrade03(obj)
	}
	rewriteScopes(obj, unwrapScopes)
	norm, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(norm, &card); err != nil {
		return nil, err
	}
	return &card, nil
}

// rewriteScopes replaces every scope list in the card's and its skills'
// security requirements with what rewrite returns for it.
func rewriteScopes(card map[string]any, rewrite func(scopes any) any) {
	holders := []any{card}
	if skills, ok := card["skills"].([]any); ok {
		holders = append(holders, skills...)
	}
	for _, h := range holders {
		obj, _ := h.(map[string]any)
		reqs, _ := obj["securityRequirements"].([]any)
		for _, r := range reqs {
			ro, _ := r.(map[string]any)
			schemes, _ := ro["schemes"].(map[string]any)
			for name, scopes := range schemes {
				schemes[name] = rewrite(scopes)
			}
		}
	}
}

// unwrapScopes turns the proto's {"list": [...]} into the bare array the SDK reads.
func unwrapScopes(scopes any) any {
	wrapped, ok := scopes.(map[string]any)
	if !ok {
		return scopes
	}
	if list, ok := wrapped["list"].([]any); ok {
		return list
	}
	return []any{}
}
