//go:build unix

package statedir

import (
	"errors"
	"io/fs"
	"syscall"
)

// noFollow makes an open fail on a symbolic link rather than follow it,
// and not wait on a named pipe, which is then refused as no regular file.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// ownerOf returns the uid that owns what info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// isLink reports whether an open with noFollow failed on a symbolic link.
func isLink(err error) bool { return errors.Is(err, syscall.ELOOP) }
