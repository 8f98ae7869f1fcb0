package statedir

import "context"

// Creator locks tell an agent whose creator is still at work, or whose
// creation Terraform may yet record, from one a create left behind when its
// process died: the process that creates an agent holds the agent's
// creator lock until it exits, or until the agent is claimed or removed,
// and the kernel lets go of it when the process dies, however it dies.
// Only the processes sharing a state dir see each other's creator locks.

// creatorKey is the lock key of the creator lock named key.
func creatorKey(key string) string { return "creator-" + key }

// HoldCreator takes the creator lock named key and keeps it until this
// process exits or ReleaseCreator lets it go. Holding it already is success.
func (d *Dir) HoldCreator(ctx context.Context, key string) error {
	if _, held := d.creators.Load(key); held {
		return nil
	}
	lock, err := d.LockKey(ctx, creatorKey(key))
	if err != nil {
		return err
	}
	d.creators.Store(key, lock)
	return nil
}

// CreatorGone reports whether no process holds the creator lock named key,
// removing its file if so: its creator has exited, or there never was one
// (no file, which it looks for before it tries the lock). A creator lock
// this process holds is never gone.
func (d *Dir) CreatorGone(ctx context.Context, key string) bool {
	if _, mine := d.creators.Load(key); mine {
		return false
	}
	return d.sweep(ctx, creatorKey(key))
}

// ReleaseCreator lets go of the creator lock named key, its agent claimed
// or removed, and removes its file unless another live process holds it.
func (d *Dir) ReleaseCreator(ctx context.Context, key string) {
	if v, mine := d.creators.LoadAndDelete(key); mine {
		_ = v.(*KeyLock).Remove()
		return
	}
	d.CreatorGone(ctx, key)
}

// SweepCreator is SweepKey for the creator lock named key.
func (d *Dir) SweepCreator(ctx context.Context, key string) {
	d.SweepKey(ctx, creatorKey(key))
}
