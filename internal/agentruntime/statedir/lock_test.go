package statedir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestKeyLockRemovedWhileWaitedOn has holders remove the key's lock file
// while others wait on it, through several Dir values on one path, as
// several provider processes would (each has its own open file, so only
// the file lock keeps them apart). A waiter that locked the removed file
// while another locked its replacement would hold the key at once with it.
func TestKeyLockRemovedWhileWaitedOn(t *testing.T) {
	path := t.TempDir()
	const (
		holders = 8
		rounds  = 1000
	)
	var (
		inside, overlaps, removed atomic.Int64
		wg                        sync.WaitGroup
	)
	errs := make(chan error, holders)
	for range holders {
		d, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for round := range rounds {
				lock, err := d.LockKey(context.Background(), "shared")
				if err != nil {
					errs <- err
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				// Stay a moment, so that an overlapping holder shows.
				for range 10 {
					runtime.Gosched()
				}
				inside.Add(-1)
				if round%2 == 0 {
					lock.Unlock()
					continue
				}
				if err := lock.Remove(); err != nil {
					errs <- err
					return
				}
				removed.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("two holders held the key at once %d times", n)
	}
	if removed.Load() == 0 {
		t.Fatal("no holder removed the lock file; the test proved nothing")
	}
}

func TestKeyLockRemove(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := d.Join(".locks", "gone.lock")
	lock, err := d.LockKey(context.Background(), "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := lock.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after Remove: %v, want not exist", err)
	}
	lock.Unlock() // deferred Unlock after Remove must not release twice

	again, err := d.LockKey(context.Background(), "gone")
	if err != nil {
		t.Fatalf("LockKey after Remove: %v", err)
	}
	again.Unlock()
	if err := again.Remove(); err == nil {
		t.Error("Remove after Unlock succeeded, want refused: the file is no longer guarded")
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("lock file after a refused Remove: %v, want kept", err)
	}
}

// TestSweepKey: a sweep removes a lock file no one holds, leaves one that
// is held, and makes none where there was none.
func TestSweepKey(t *testing.T) {
	ctx := context.Background()
	d := open(t, t.TempDir())
	file := d.Join(".locks", "agent.lock")
	exists := func() bool { _, err := os.Stat(file); return err == nil }

	d.SweepKey(ctx, "agent")
	if exists() {
		t.Fatal("a sweep of a key with no lock file made one")
	}
	held, err := d.LockKey(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	d.SweepKey(ctx, "agent")
	if !exists() {
		t.Fatal("a sweep removed a lock file that is held")
	}
	held.Unlock()
	d.SweepKey(ctx, "agent")
	if exists() {
		t.Fatal("a sweep left a lock file no one holds")
	}
	if lock, err := d.LockKey(ctx, "agent"); err != nil {
		t.Fatalf("locking a swept key: %v", err)
	} else {
		lock.Unlock()
	}
}
