// Package hostbuild builds the agent host executable (cmd/a2a-agent-host)
// for tests that run agents, the way the release builds it: static, so that
// an empty image can start it, and stamped with a release, Release, which
// the runtimes the tests make are given as the provider's.
package hostbuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// Release is the release the built host reports.
const Release = "test"

// pkg is the host's main package.
const pkg = "github.com/a2a-terraform/terraform-provider-a2a/cmd/" + launch.HostExecutable

var (
	mu   sync.Mutex
	path string
	err  error
	// dir holds the build, if one was made.
	dir string
)

// Path returns the host executable, built once per process into a
// directory of its own, named launch.HostExecutable.
func Path() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if path == "" && err == nil {
		path, err = build()
	}
	return path, err
}

// Used returns what Path returned, if it was called, and so what the tests
// may have built images from; it builds nothing.
func Used() (string, bool) {
	mu.Lock()
	defer mu.Unlock()
	return path, path != ""
}

// Remove deletes the build, if one was made; TestMain calls it last.
func Remove() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

func build() (string, error) {
	var err error
	if dir, err = os.MkdirTemp("", "agent-host-"); err != nil {
		return "", err
	}
	out := filepath.Join(dir, launch.HostExecutable)
	// Run from the test's package directory, inside the module, so the
	// package resolves to this very tree.
	cmd := exec.CommandContext(context.Background(), "go", "build", "-ldflags", "-X main.version="+Release, "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the agent host %s: %w\n%s", pkg, err, log.String())
	}
	return out, nil
}
