package statedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// The provider trusts what the state dir holds: its records name the
// processes it signals and the configs it runs, and it appends to the logs
// in it as the user it runs as. So the state dir, and every directory and
// file in it, must be the user's own, and nothing in it may lead
// elsewhere: another user's entry, a symbolic link or a special file is
// refused, naming it, rather than used. Paths are checked from the state
// dir down, each directory with Lstat and each file on the descriptor
// opened without following links, so that what is checked is what is
// used; nothing below a private directory of the user's own can be
// swapped by anyone else in between.

// errNotLocal refuses a path that leaves the state dir.
var errNotLocal = errors.New("is not a path inside the state dir")

// me is the user the provider runs as, who must own the state dir.
func me() int { return os.Geteuid() }

// describeUser names uid, with its user name where one is known.
func describeUser(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return "uid " + strconv.Itoa(uid)
}

// ownDir describes the state dir at path, which must be a directory of the
// user's own, reached through no link another user could point elsewhere.
func ownDir(path string) (fs.FileInfo, error) {
	link, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", path, err)
	}
	info := link
	if link.Mode()&fs.ModeSymlink != 0 {
		if info, err = os.Stat(path); err != nil {
			return nil, fmt.Errorf("state dir %s: %w", path, err)
		}
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("state dir %s is not a directory; point state_dir elsewhere", path)
	}
	if uid, ok := ownerOf(link); ok && link.Mode()&fs.ModeSymlink != 0 && uid != me() && uid != 0 {
		return nil, fmt.Errorf("state dir %s is a symbolic link owned by %s, not by you, %s: its owner could point it elsewhere at any time. "+
			"Point state_dir at the directory itself, or at a directory of your own", path, describeUser(uid), describeUser(me()))
	}
	if uid, ok := ownerOf(info); ok && uid != me() {
		return nil, fmt.Errorf("state dir %s is owned by %s, not by you, %s: its owner could rewrite the records, configs and logs "+
			"the provider trusts, and so take over your agents. Point state_dir at a directory of your own (a new one is created "+
			"with mode 0700), or, if the directory is yours, take it back with `chown -R %d %s`",
			path, describeUser(uid), describeUser(me()), me(), path)
	}
	return info, nil
}

// checkEntry refuses an entry of the state dir, at path, that is not the
// user's own directory (dir) or regular file.
func (d *Dir) checkEntry(path string, info fs.FileInfo, dir bool) error {
	what := "regular file"
	if dir {
		what = "directory"
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return d.linkError(path)
	case dir != info.IsDir() || !dir && !info.Mode().IsRegular():
		return fmt.Errorf("%s in state dir %s is not a %s, as the provider keeps there: remove it and run terraform again", path, d.path, what)
	}
	if uid, ok := ownerOf(info); ok && uid != me() {
		return fmt.Errorf("%s in state dir %s is owned by %s, not by you, %s, so someone else made it, and the provider does not "+
			"trust it: check what it is, remove it (or `chown` it to yourself if it is yours), and run terraform again",
			path, d.path, describeUser(uid), describeUser(me()))
	}
	return nil
}

func (d *Dir) linkError(path string) error {
	return fmt.Errorf("%s in state dir %s is a symbolic link, which the provider never makes there and does not follow, "+
		"since it could lead it to read or write elsewhere: remove it and run terraform again", path, d.path)
}

// checkedDir returns the path of the directory rel, having checked it,
// every directory between it and the state dir and the state dir itself,
// which whoever may write above it could have put another in the place
// of; with create, those that are missing are made, 0700. Without create,
// a missing one is an error satisfying errors.Is(err, fs.ErrNotExist).
func (d *Dir) checkedDir(rel string, create bool) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s %w", rel, errNotLocal)
	}
	if _, err := ownDir(d.path); err != nil {
		return "", err
	}
	p := d.path
	for _, name := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if name == "." {
			continue
		}
		p = filepath.Join(p, name)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("create %s: %w", p, err)
			}
			info, err = os.Lstat(p)
		}
		if err != nil {
			return "", err
		}
		if err := d.checkEntry(p, info, true); err != nil {
			return "", err
		}
	}
	return p, nil
}

// openFile opens the file rel with flag (creating it 0600 when flag says
// so) without following a link, and checks that it opened the user's own
// regular file. The directories above it are checked first, and made
// when flag creates the file.
func (d *Dir) openFile(rel string, flag int) (*os.File, error) {
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s %w", rel, errNotLocal)
	}
	if _, err := d.checkedDir(filepath.Dir(rel), flag&os.O_CREATE != 0); err != nil {
		return nil, err
	}
	p := d.Join(rel)
	f, err := os.OpenFile(p, flag|noFollow, 0o600)
	if isLink(err) {
		return nil, d.linkError(p)
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = d.checkEntry(p, info, false)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// OpenFile opens rel for reading; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func (d *Dir) OpenFile(rel string) (*os.File, error) {
	return d.openFile(rel, os.O_RDONLY)
}

// AppendFile opens rel for appending, creating it 0600 (and the
// directories above it 0700), for files written other than by WriteFile,
// such as logs.
func (d *Dir) AppendFile(rel string) (*os.File, error) {
	return d.openFile(rel, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

// ReadFile reads rel; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func (d *Dir) ReadFile(rel string) ([]byte, error) {
	f, err := d.OpenFile(rel)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(f)
}

// Stat describes the file rel, once checked like OpenFile's; a missing
// file is an error satisfying errors.Is(err, fs.ErrNotExist).
func (d *Dir) Stat(rel string) (fs.FileInfo, error) {
	if _, err := d.checkedDir(filepath.Dir(rel), false); err != nil {
		return nil, err
	}
	p := d.Join(rel)
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if err := d.checkEntry(p, info, false); err != nil {
		return nil, err
	}
	return info, nil
}
