package provider

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccStateDirOfAnotherUser is an attack on a shared machine: another
// user makes the state dir an apply will use, private to them but with its
// agents and logs directories ready and an agent's log a link to a file of
// the victim's choosing. The apply refuses the state dir, saying whose it
// is, and creates nothing through the link.
func TestAccStateDirOfAnotherUser(t *testing.T) {
	a := newAccTest(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root can make the state dir of another user (os.Chown) that this test refuses")
	}
	const nobody = 65534
	victim := filepath.Join(t.TempDir(), "pwned.log")
	for _, dir := range []string{"local/agents", "local/logs"} {
		if err := os.MkdirAll(filepath.Join(a.stateDir, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(a.stateDir, "local/logs/victim.log")); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(a.stateDir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      a.agent(echoConfig("Victim", "an agent whose log another user linked elsewhere")),
			ExpectError: regexp.MustCompile(`(?s)state dir .* is owned by\s+uid\s+65534.*not\s+by\s+you.*state_dir`),
		}},
	})
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s, which the planted link names, was made (%v)", victim, err)
	}
}
