// Package staticself gives a test binary a static build of itself.
//
// The container adapter packs the provider's executable into an empty
// image, where only a statically linked binary starts, and tests let their
// own binary stand in for the provider. `go test` links that binary
// dynamically whenever cgo is on, which is the default wherever a C
// compiler is installed; rather than asking every developer to set
// CGO_ENABLED=0, the tests pack a second build of the same test package
// made without cgo.
package staticself

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync"
)

// Path returns a static build of the running test binary: the binary itself
// when it is static already (CGO_ENABLED=0, as the Makefile sets), else the
// same package's tests compiled without cgo, once per process. Like the
// test binary, the build runs the agent host as `<path> run`.
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

var (
	mu   sync.Mutex
	path string
	err  error
	// dir holds the build, if one was made.
	dir string
)

// Remove deletes the build, if one was made; TestMain calls it last.
func Remove() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

func build() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the test binary: %w", err)
	}
	if static, err := isStatic(self); err != nil || static {
		return self, err
	}
	if dir, err = os.MkdirTemp("", "static-test-binary-"); err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(self))
	// `go test` runs a test binary in its package's directory, so "." is
	// the package the running binary was built from; its build tags, such
	// as the crashpoint tag the fault-injection tests need, go with it.
	cmd := exec.CommandContext(context.Background(), "go", "test", "-c", "-vet=off", "-tags="+buildTags(), "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s is dynamically linked, and building it again with CGO_ENABLED=0 failed (set CGO_ENABLED=0 for go test instead): %w\n%s",
			self, err, log.String())
	}
	return out, nil
}

// buildTags are the build tags the running binary was built with.
func buildTags() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}

// isStatic reports whether path is an ELF binary that names no dynamic
// loader; one that is not ELF at all is an error.
func isStatic(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, fmt.Errorf("the test binary %s is not a linux binary, so it cannot run in a container: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false, nil
		}
	}
	return true, nil
}
