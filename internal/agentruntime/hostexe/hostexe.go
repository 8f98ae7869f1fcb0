// Package hostexe finds the built-in agent host's executable for the
// adapters that start or pack it, and makes sure it is of the provider's
// own release: a host and a provider of different releases may read an
// agent config or the host's command line differently, so they are never
// mixed.
package hostexe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// Beside is the host's path by default: the directory of the running
// executable, where the release archive (which terraform init unpacks
// whole) and `make build` put the host next to the provider.
func Beside() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locate the provider's executable, beside which the agent host %s lies: %w", launch.HostExecutable, err)
	}
	return filepath.Join(filepath.Dir(self), launch.HostExecutable), nil
}

// askWait bounds the host's answer to launch.VersionArg, which it gives
// before it reads anything.
const askWait = 10 * time.Second

// Check makes sure path is an executable agent host of release want; an
// empty want checks the file alone. The host is asked its release once per
// file: the answer is kept for as long as the file keeps its size and
// modification time, so that starting many agents asks once.
func Check(ctx context.Context, path, want string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("the agent host %s cannot be run (%w): %s", path, err, remedy(want))
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("the agent host %s is not an executable file: %s", path, remedy(want))
	case want == "":
		return nil
	}
	got, err := release(ctx, path, info, want)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("the agent host %s is of release %q and this provider of release %q, and a host and a provider of "+
			"different releases are never mixed: %s", path, got, want, remedy(want))
	}
	return nil
}

// remedy says where a host of release want comes from.
func remedy(want string) string {
	of := ""
	if want != "" {
		of = fmt.Sprintf(" of release %q", want)
	}
	return fmt.Sprintf("use the %s%s, which that release's archive holds beside the provider's executable "+
		"(terraform init unpacks it there; from source, `make build` builds both into bin/)", launch.HostExecutable, of)
}

// answer is what a host file said when asked its release.
type answer struct {
	size    int64
	modTime time.Time
	release string
}

var (
	mu      sync.Mutex
	answers = map[string]answer{}
)

// release asks the host at path for its release, or recalls its answer;
// want, the release the provider needs, only goes into the error.
// The lock is held while it asks, so that agents started at once ask once.
func release(ctx context.Context, path string, info os.FileInfo, want string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if a, ok := answers[path]; ok && a.size == info.Size() && a.modTime.Equal(info.ModTime()) {
		return a.release, nil
	}
	ctx, cancel := context.WithTimeout(ctx, askWait)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, launch.VersionArg)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the agent host %s did not tell its release when run as `%s %s` (%w%s), so it is no %s: %s",
			path, filepath.Base(path), launch.VersionArg, err, said(stderr.String()), launch.HostExecutable, remedy(want))
	}
	got := strings.TrimSpace(stdout.String())
	answers[path] = answer{size: info.Size(), modTime: info.ModTime(), release: got}
	return got, nil
}

// said quotes the first line a failed host wrote, if any.
func said(stderr string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if line == "" {
		return ""
	}
	return fmt.Sprintf(", saying %q", line)
}
