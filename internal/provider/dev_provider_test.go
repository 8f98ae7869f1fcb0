//go:build linux

package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// devProvider makes this test binary the provider terraform launches for
// a2a-terraform/a2a, as a plugin process of its own, through a CLI config
// with dev_overrides under root, as `make dev-config` does for a build:
// no terraform init and no registry. It returns the environment terraform
// runs with.
func devProvider(t *testing.T, root string) []string {
	t.Helper()
	requireTerraform(t)
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "terraform-provider-a2a")); err != nil {
		t.Fatal(err)
	}
	// The plugin process, whose executable has no host beside it, is told
	// where the tests' host is.
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(root, "terraformrc")
	overrides := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", Address, bin)
	if err := os.WriteFile(rc, []byte(overrides), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_DATA_DIR="+filepath.Join(root, "tfdata"),
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", crashpoint.EnvVar+"=", hostEnv+"="+host)
}

// hostEnv gives a plugin process devProvider makes the path of the agent
// host the tests build.
const hostEnv = "A2A_PROVIDER_TEST_HOST"

// devWorld is a terraform working dir whose provider is this test binary,
// launched by terraform through devProvider.
type devWorld struct {
	t   *testing.T
	dir string
	env []string
}

// newDevWorld makes a working dir whose provider keeps its state dir in
// stateDir, where the configuration does not say otherwise: the default
// state dir (A2A_STATE_DIR), and the quickstarts' state_dir variable.
func newDevWorld(t *testing.T, stateDir string) *devWorld {
	t.Helper()
	root := t.TempDir()
	w := &devWorld{t: t, dir: filepath.Join(root, "work")}
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = append(devProvider(t, root), "A2A_STATE_DIR="+stateDir, "TF_VAR_state_dir="+stateDir)
	return w
}

// write writes a file of the working dir.
func (w *devWorld) write(name, content string) {
	w.t.Helper()
	writeFile(w.t, filepath.Join(w.dir, name), content)
}

// run runs a terraform command and returns what it printed and its exit
// code.
func (w *devWorld) run(args ...string) (string, int) {
	w.t.Helper()
	return terraformIn(w.t, w.env, w.dir, args...)
}

// terraform runs a terraform command that must succeed and returns what
// it printed.
func (w *devWorld) terraform(args ...string) string {
	w.t.Helper()
	out, code := w.run(args...)
	if code != 0 {
		w.t.Fatalf("terraform %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// destroyAtCleanup destroys what the world applied when the test ends,
// whatever its outcome; a test that destroys it itself makes this a no-op.
func (w *devWorld) destroyAtCleanup() {
	w.t.Cleanup(func() {
		_, _ = terraformIn(w.t, w.env, w.dir, "destroy", "-auto-approve", "-input=false", "-refresh=false")
	})
}

// terraformIn runs a terraform command in dir with env, in a process group
// of its own, and returns what it printed and its exit code.
func terraformIn(t *testing.T, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	cmd, out := terraformCommand(t, env, dir, args...)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	return "", 0
}

func terraformCommand(t *testing.T, env []string, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if args[0] == "state" {
		args = append([]string{"-chdir=" + dir}, args...) // state subcommands print no color
	} else {
		args = append([]string{"-chdir=" + dir, args[0], "-no-color"}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, terraformOn(t, env), args...)
	cmd.Env = slices.Clone(env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, &out
}

// terraformOn is the terraform found on the PATH of env, the last one env
// sets, so that a world may run another Terraform CLI than the tests' own.
func terraformOn(t *testing.T, env []string) string {
	t.Helper()
	for i := len(env) - 1; i >= 0; i-- {
		if dirs, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, dir := range filepath.SplitList(dirs) {
				if path := filepath.Join(dir, "terraform"); isExecutable(path) {
					return path
				}
			}
			break
		}
	}
	t.Fatalf("terraform is not on the PATH terraform runs with")
	return ""
}

// useTerraform makes the world run the Terraform CLI at path.
func (w *devWorld) useTerraform(path string) {
	w.env = append(w.env, "PATH="+filepath.Dir(path)+string(os.PathListSeparator)+os.Getenv("PATH"))
}
