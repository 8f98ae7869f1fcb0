package agentconfig

import "fmt"

// ReferenceSite is where a config first references a variable.
type ReferenceSite struct {
	Line, Column int
	// InComment is set when the reference is inside a TOML comment. It
	// counts all the same: references are read from the raw text, before
	// the config is parsed.
	InComment bool
}

func (s ReferenceSite) String() string {
	where := fmt.Sprintf("agent config line %d, column %d", s.Line, s.Column)
	if s.InComment {
		where += ", in a comment"
	}
	return where
}

// FirstReferences finds the first reference to each variable raw text
// references. It scans the text as TOML lexes it, string by string, so that
// it works on a config that does not parse and can tell a reference in a
// comment from one in a value. Columns count bytes from 1.
func FirstReferences(raw []byte) map[string]ReferenceSite {
	sites := map[string]ReferenceSite{}
	eachReference(raw, func(name string, at int, site ReferenceSite) {
		if _, seen := sites[name]; !seen {
			sites[name] = site
		}
	})
	return sites
}

// EscapedReference is a reference written $${VAR}, Terraform's escape for a
// ${VAR} it is to leave alone. Terraform takes the escape away in a string
// it interpolates (a heredoc), so one that reaches the config was written
// where Terraform does not interpolate, such as a file read with file():
// the agent host then keeps the first $ and expands the ${VAR} after it.
type EscapedReference struct {
	// Written is the reference as written, such as $${GREETING}.
	Written string
	Site    ReferenceSite
}

// EscapedReferences finds every reference raw text writes as $${VAR}, at
// the place of its first $.
func EscapedReferences(raw []byte) []EscapedReference {
	var found []EscapedReference
	eachReference(raw, func(_ string, at int, site ReferenceSite) {
		if at > 0 && raw[at-1] == '$' {
			site.Column--
			found = append(found, EscapedReference{Written: "$" + string(reference.Find(raw[at:])), Site: site})
		}
	})
	return found
}

// eachReference calls fn with each reference of raw text: the variable,
// the offset of its $ and where that is.
func eachReference(raw []byte, fn func(name string, at int, site ReferenceSite)) {
	var lex tomlLexer
	line, lineStart, i := 1, 0, 0
	for _, m := range reference.FindAllSubmatchIndex(raw, -1) {
		for ; i < m[0]; i++ {
			if raw[i] == '\n' {
				line, lineStart = line+1, i+1
			}
			i += lex.step(raw, i)
		}
		fn(string(raw[m[2]:m[3]]), m[0], ReferenceSite{Line: line, Column: m[0] - lineStart + 1, InComment: lex.state == inComment})
	}
}

type lexState int

const (
	inCode lexState = iota
	inComment
	inBasic        // "..."
	inLiteral      // '...'
	inMultiBasic   // """..."""
	inMultiLiteral // '''...'''
)

// tomlLexer follows just enough of TOML to know whether a byte is code, a
// comment or inside a string. A broken document (an unterminated string)
// ends the string at the end of its line, as the TOML parser's error would.
type tomlLexer struct{ state lexState }

// step moves past raw[i] and returns how many more bytes it consumed.
func (l *tomlLexer) step(raw []byte, i int) int {
	c := raw[i]
	triple := func(q byte) bool { return i+2 < len(raw) && raw[i+1] == q && raw[i+2] == q }
	switch l.state {
	case inCode:
		switch {
		case c == '#':
			l.state = inComment
		case c == '"' && triple('"'):
			l.state = inMultiBasic
			return 2
		case c == '"':
			l.state = inBasic
		case c == '\'' && triple('\''):
			l.state = inMultiLiteral
			return 2
		case c == '\'':
			l.state = inLiteral
		}
	case inComment:
		if c == '\n' {
			l.state = inCode
		}
	case inBasic, inLiteral:
		switch {
		case c == '\n', l.state == inBasic && c == '"', l.state == inLiteral && c == '\'':
			l.state = inCode
		case l.state == inBasic && c == '\\' && i+1 < len(raw) && raw[i+1] != '\n':
			return 1
		}
	case inMultiBasic:
		switch {
		case c == '\\' && i+1 < len(raw) && raw[i+1] != '\n':
			return 1
		case c == '"' && triple('"'):
			l.state = inCode
			return 2
		}
	case inMultiLiteral:
		if c == '\'' && triple('\'') {
			l.state = inCode
			return 2
		}
	}
	return 0
}
