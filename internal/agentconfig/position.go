package agentconfig

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyIndex knows where each key of a document is written, from the TOML
// parser's own view of it, so that a problem found after decoding points
// at the place to edit. Keys are named as in Problem.Key: dotted, with
// array elements indexed ("skills[1].id"). A table is found at its header,
// a key at the key itself (its last segment when dotted). Offsets are kept
// and turned into lines and columns only for the keys a problem names.
type keyIndex struct {
	parser  unstable.Parser
	offsets map[string]uint32
	// arrays counts the elements of each array of tables so far, so that a
	// key below one names the element it belongs to.
	arrays map[string]int
	// lineStarts holds the offset of each line's first byte.
	lineStarts []int
}

func newKeyIndex(raw []byte) *keyIndex {
	idx := &keyIndex{offsets: map[string]uint32{}, arrays: map[string]int{}}
	idx.parser.Reset(raw)
	table := ""
	for idx.parser.NextExpression() {
		expr := idx.parser.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = idx.header(expr)
		case unstable.KeyValue:
			idx.keyValue(table, expr)
		}
	}
	// A document the decoder accepted parses cleanly; were it not to, the
	// keys read before the error still locate, and the rest yield no position.
	return idx
}

// header records a [table] or [[array]] header and returns the name of the
// table it opens. The header itself is located at its opening bracket.
func (idx *keyIndex) header(expr *unstable.Node) string {
	var segments []*unstable.Node
	for it := expr.Key(); it.Next(); {
		segments = append(segments, it.Node())
	}
	name := ""
	for i, seg := range segments {
		name = join(name, string(seg.Data))
		if i < len(segments)-1 {
			if count, ok := idx.arrays[name]; ok {
				name += element(count - 1)
			}
			idx.record(name, seg.Raw.Offset)
			continue
		}
		at := bracketBefore(idx.parser.Data(), segments[0].Raw.Offset)
		if expr.Kind == unstable.ArrayTable {
			idx.record(name, at) // the array, at its first element
			idx.arrays[name]++
			name += element(idx.arrays[name] - 1)
		}
		idx.offsets[name] = at
	}
	return name
}

// keyValue records a key = value line below table, and the keys within an
// inline table or array value.
func (idx *keyIndex) keyValue(table string, expr *unstable.Node) {
	name := table
	for it := expr.Key(); it.Next(); {
		seg := it.Node()
		name = join(name, string(seg.Data))
		idx.record(name, seg.Raw.Offset)
	}
	idx.value(name, expr.Value())
}

func (idx *keyIndex) value(name string, v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				idx.keyValue(name, kv)
			}
		}
	case unstable.Array:
		i := 0
		for it := v.Children(); it.Next(); {
			elem := it.Node()
			if elem.Kind == unstable.Comment {
				continue
			}
			at := name + element(i)
			if elem.Raw.Length > 0 {
				idx.record(at, elem.Raw.Offset)
			}
			idx.value(at, elem)
			i++
		}
	}
}

// record keeps the first place a key appears: a table named implicitly by
// a dotted key or header is found where it is first named.
func (idx *keyIndex) record(name string, offset uint32) {
	if _, ok := idx.offsets[name]; !ok {
		idx.offsets[name] = offset
	}
}

// locate returns the line and column of key or, for a key the document does
// not hold, of the nearest enclosing table it does hold; zero if none.
// Columns count bytes from 1, as the TOML decoder's own positions do.
func (idx *keyIndex) locate(key string) (line, column int) {
	for k := key; k != ""; k = parent(k) {
		if offset, ok := idx.offsets[k]; ok {
			return idx.position(int(offset))
		}
	}
	return 0, 0
}

// position turns an offset into a line and column. The parser's Shape would
// rescan the document from its start for each offset, which a config with
// thousands of problems turns into minutes; the line starts are found once.
func (idx *keyIndex) position(offset int) (line, column int) {
	if idx.lineStarts == nil {
		idx.lineStarts = []int{0}
		for i, b := range idx.parser.Data() {
			if b == '\n' {
				idx.lineStarts = append(idx.lineStarts, i+1)
			}
		}
	}
	line = sort.SearchInts(idx.lineStarts, offset+1) // lines whose start is at or before offset
	return line, offset - idx.lineStarts[line-1] + 1
}

// parent strips the last segment or element index of a key:
// "skills[1].id" → "skills[1]" → "skills" → "".
func parent(key string) string {
	if strings.HasSuffix(key, "]") {
		return key[:strings.LastIndexByte(key, '[')]
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

func join(prefix, segment string) string {
	if prefix == "" {
		return segment
	}
	return prefix + "." + segment
}

func element(i int) string { return "[" + strconv.Itoa(i) + "]" }

// bracketBefore steps back from a header's first key over the blanks and
// brackets before it, to the header's opening bracket.
func bracketBefore(data []byte, offset uint32) uint32 {
	for offset > 0 && strings.IndexByte(" \t[", data[offset-1]) >= 0 {
		offset--
		if data[offset] == '[' && (offset == 0 || data[offset-1] != '[') {
			break
		}
	}
	return offset
}
