package agentruntime

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// LogLineMax bounds one log line as adapters return it: the end of a
// longer line is kept, since a failure is told last.
const LogLineMax = 1024

// LogBudget is the most of a log an adapter reads to return its last n
// lines, so that the cost of a tail follows the lines asked for, not the
// size of the log.
func LogBudget(n int) int { return (n + 1) * LogLineMax }

// TailBuffer keeps the last bytes written to it, up to a limit: a log
// streamed through it costs memory bounded by the limit.
type TailBuffer struct {
	limit int
	buf   []byte
	// Cut reports whether bytes were dropped from the front.
	Cut bool
}

// NewTailBuffer keeps the last limit bytes.
func NewTailBuffer(limit int) *TailBuffer { return &TailBuffer{limit: limit} }

func (b *TailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.limit {
		b.Cut = b.Cut || len(b.buf) > 0 || len(p) > b.limit
		b.buf = append(b.buf[:0], p[len(p)-b.limit:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.Cut = true
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// Lines returns the last n lines kept (all when n <= 0), each cut to
// LogLineMax; a first line whose start was dropped is left out unless it
// is all there is.
func (b *TailBuffer) Lines(n int) []string {
	return TailLines(b.buf, n, b.Cut)
}

// TailLines splits the end of a log into its last n lines (all when
// n <= 0), each cut to its last LogLineMax bytes. When cut, data starts
// within a line, which is left out unless it is the only one.
func TailLines(data []byte, n int, cut bool) []string {
	text := strings.TrimSuffix(string(data), "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:]
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > LogLineMax {
			lines[i] = l[len(l)-LogLineMax:]
		}
	}
	return lines
}

// Printable makes a log line fit for an operator's eyes: every run of
// bytes that is not printable text (NULs, control characters, invalid
// UTF-8) becomes one "\uFFFD", so a binary log cannot flood a message.
func Printable(line string) string {
	var b strings.Builder
	replaced := false
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		if (r == utf8.RuneError && size <= 1) || (!unicode.IsPrint(r) && r != '\t') {
			if !replaced {
				b.WriteRune(utf8.RuneError)
			}
			replaced = true
			continue
		}
		replaced = false
		b.WriteRune(r)
	}
	return b.String()
}
