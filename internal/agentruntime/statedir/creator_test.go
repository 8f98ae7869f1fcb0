package statedir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/rerun"
)

// creatorStateDir names, to the process a test starts, the state dir in
// which it holds a creator lock and exits.
const creatorStateDir = "A2A_TEST_CREATOR_STATE_DIR"

// TestCreatorGone: a creator lock held by a live process, this one or
// another, is not gone; one whose holder exited is, and its file goes with
// the probe that finds so; one its holder releases is gone at once.
func TestCreatorGone(t *testing.T) {
	if rerun.Part() == "hold and exit" {
		d, err := Open(os.Getenv(creatorStateDir))
		if err == nil {
			err = d.HoldCreator(context.Background(), "agent")
		}
		if err != nil {
			t.Fatal(err)
		}
		os.Exit(0)
	}
	ctx, path := context.Background(), t.TempDir()
	creator, other := open(t, path), open(t, path)
	lockFile := creator.Join(".locks", creatorKey("agent")+".lock")

	// A creator lock that never was reads gone from a look at its file
	// alone, which leaves the state dir as it was.
	if !other.CreatorGone(ctx, "agent") {
		t.Fatal("a creator lock that never was does not read gone")
	}
	if _, err := os.Stat(creator.Join(".locks")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("looking for a creator lock that never was made the lock dir: %v", err)
	}

	if err := creator.HoldCreator(ctx, "agent"); err != nil {
		t.Fatal(err)
	}
	if err := creator.HoldCreator(ctx, "agent"); err != nil {
		t.Fatalf("holding a creator lock held already = %v, want success", err)
	}
	if creator.CreatorGone(ctx, "agent") || other.CreatorGone(ctx, "agent") {
		t.Fatal("the creator lock of a live process reads gone")
	}
	creator.ReleaseCreator(ctx, "agent")
	if _, err := os.Stat(lockFile); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the released creator lock's file is left: %v", err)
	}
	if !other.CreatorGone(ctx, "agent") {
		t.Fatal("a released creator lock does not read gone")
	}

	if out, err := rerun.Run(t, "hold and exit", creatorStateDir+"="+path); err != nil {
		t.Fatalf("the creator process: %v\n%s", err, out)
	}
	if _, err := os.Stat(lockFile); err != nil {
		t.Fatalf("the creator that exited left no lock file to probe: %v", err)
	}
	if !other.CreatorGone(ctx, "agent") {
		t.Fatal("the creator lock of a process that exited does not read gone")
	}
	if _, err := os.Stat(lockFile); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the lock file of a creator that exited is left after the probe: %v", err)
	}
}

func open(t *testing.T, path string) *Dir {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
