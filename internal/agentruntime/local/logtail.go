//go:build linux

package local

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// tailLines returns the last n lines of the file rel of dir (all when
// n <= 0), each cut to agentruntime.LogLineMax. It reads no more than
// agentruntime.LogBudget(n) bytes from the end, so a huge log, or one
// without line breaks, costs only what is asked for. A missing file has no
// lines.
func tailLines(ctx context.Context, dir *statedir.Dir, rel string, n int) ([]string, error) {
	f, err := dir.OpenFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n <= 0 {
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		return agentruntime.TailLines(data, 0, false), nil
	}
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	start := max(0, info.Size()-int64(agentruntime.LogBudget(n)))
	data := make([]byte, info.Size()-start)
	read, err := f.ReadAt(data, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return agentruntime.TailLines(data[:read], n, start > 0), nil
}
