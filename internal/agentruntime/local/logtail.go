//go:build linux

package local

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
)

// tailChunk is how much of a log is read at a time, from the end backwards.
const tailChunk = 64 << 10

// tailLines returns the last n lines of the file at path (all when n <= 0),
// reading backwards from the end so a huge log costs only what is returned.
// A missing file has no lines.
func tailLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	var buf []byte
	offset := size
	for offset > 0 && (n <= 0 || bytes.Count(buf, []byte{'\n'}) <= n) {
		step := min(int64(tailChunk), offset)
		offset -= step
		chunk := make([]byte, step)
		if _, err := f.ReadAt(chunk, offset); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		buf = append(chunk, buf...)
	}
	text := strings.TrimSuffix(string(buf), "\n")
	if text == "" {
		return nil, nil
	}
	lines := strings.Split(text, "\n")
	if offset > 0 {
		lines = lines[1:] // the first line read may be cut off
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
