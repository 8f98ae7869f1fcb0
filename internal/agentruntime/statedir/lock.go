package statedir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockRetry is how often a process waiting for another's lock tries again;
// lock holders only read and write small files, so waits are short.
const lockRetry = 5 * time.Millisecond

// Lock waits, until ctx ends, for exclusive use of the whole state dir
// among all goroutines and processes that lock it, and returns the function
// that releases it.
func (d *Dir) Lock(ctx context.Context) (unlock func(), err error) {
	return d.lock(ctx, ".lock")
}

// KeyLock is a held lock on one key. It belongs to the goroutine that took
// it.
type KeyLock struct {
	path string
	// release is nil once the lock is released.
	release func()
}

// LockKey is Lock for one key (such as one agent's record), so that work
// on different keys goes on in parallel. A caller that needs both takes
// Lock first. The key must be usable as a file name.
func (d *Dir) LockKey(ctx context.Context, key string) (*KeyLock, error) {
	if key == "" || strings.ContainsAny(key, "/\\") || strings.HasPrefix(key, ".") {
		return nil, fmt.Errorf("lock key %q is not a plain file name", key)
	}
	if err := d.MkdirAll(".locks"); err != nil {
		return nil, err
	}
	rel := filepath.Join(".locks", key+".lock")
	release, err := d.lock(ctx, rel)
	if err != nil {
		return nil, err
	}
	return &KeyLock{path: d.Join(rel), release: release}, nil
}

// Unlock releases the lock; once released, it does nothing, so it may be
// deferred ahead of a Remove.
func (l *KeyLock) Unlock() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
}

// Remove deletes the key's lock file, for a key whose subject is gone for
// good, and releases the lock. The file goes while the lock is still held;
// whoever was waiting on it then finds that the file it locked is no longer
// the key's and waits on the key's new file instead, so two holders never
// overlap.
func (l *KeyLock) Remove() error {
	if l.release == nil {
		return fmt.Errorf("lock %s was released before its file was removed; remove it while holding the lock", l.path)
	}
	err := os.Remove(l.path)
	l.Unlock()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove lock file %s: %w", l.path, err)
	}
	return nil
}

// inProcessMutex is the one-slot channel that serialises this process's
// holders of the lock file rel, so that they queue without polling.
func (d *Dir) inProcessMutex(rel string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.inProcess[rel]
	if !ok {
		m = make(chan struct{}, 1)
		d.inProcess[rel] = m
	}
	return m
}

func (d *Dir) lock(ctx context.Context, rel string) (func(), error) {
	mutex := d.inProcessMutex(rel)
	select {
	case mutex <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for state dir lock %s: %w", d.Join(rel), ctx.Err())
	}
	fl, err := d.lockFile(ctx, d.Join(rel))
	if err != nil {
		<-mutex
		return nil, err
	}
	return func() {
		_ = fl.Close()
		<-mutex
	}, nil
}

// lockFile locks the file at path, waiting until ctx ends. A lock on a
// file that was removed or replaced meanwhile (see KeyLock.Remove) excludes
// no one, so it is let go and the file now at path locked instead. Like
// every file of the state dir, the lock file is opened without following a
// link, and must be the user's own regular file.
func (d *Dir) lockFile(ctx context.Context, path string) (*flock.Flock, error) {
	for {
		// A fresh flock per attempt: one flock.Flock is a single open file,
		// and locks on it do not exclude each other.
		fl := flock.New(path, flock.SetPermissions(0o600), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow))
		ok, err := fl.TryLockContext(ctx, lockRetry)
		if err == nil && !ok {
			err = ctx.Err()
		}
		if isLink(err) {
			return nil, d.linkError(path)
		}
		if err != nil {
			return nil, fmt.Errorf("wait for state dir lock %s (another terraform run may hold it): %w", path, err)
		}
		current, err := d.lockIsCurrent(fl, path)
		if current {
			return fl, nil
		}
		_ = fl.Close()
		if err != nil {
			return nil, err
		}
	}
}

// lockIsCurrent reports whether path still names the file fl has locked,
// which must be the user's own.
func (d *Dir) lockIsCurrent(fl *flock.Flock, path string) (bool, error) {
	locked, err := fl.Stat()
	if err != nil {
		return false, fmt.Errorf("state dir lock %s: %w", path, err)
	}
	if err := d.checkEntry(path, locked, false); err != nil {
		return false, err
	}
	named, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state dir lock %s: %w", path, err)
	}
	return os.SameFile(locked, named), nil
}

// sweepProbe bounds the wait for a lock being swept: a key that is in use
// is left as it is.
const sweepProbe = 100 * time.Millisecond

// SweepKey removes the lock file of key, whose subject the caller found
// gone for good, unless the file is not there or someone holds the lock.
// A removal cut short after its subject's last trace but before its lock
// file went leaves that file for nothing to track; the next look that
// finds the subject gone sweeps it.
func (d *Dir) SweepKey(ctx context.Context, key string) {
	d.sweep(ctx, key)
}

// sweep removes the lock file of key unless someone holds the lock, and
// reports whether no one holds it: the file is not there, the cheap look
// made first, or it was free and is removed.
func (d *Dir) sweep(ctx context.Context, key string) bool {
	if _, err := d.Stat(filepath.Join(".locks", key+".lock")); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	probe, cancel := context.WithTimeout(ctx, sweepProbe)
	defer cancel()
	lock, err := d.LockKey(probe, key)
	if err != nil {
		return false
	}
	_ = lock.Remove()
	return true
}
