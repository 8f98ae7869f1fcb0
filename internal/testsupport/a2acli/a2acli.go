// Package a2acli builds, for tests, the command-line tool the official A2A
// Go SDK ships (github.com/a2aproject/a2a-go/v2/cmd/a2a), at the SDK version
// this module pins. Its `a2a serve` runs a real A2A agent nobody here
// wrote: an echo agent, any program turned into an agent (--exec), over
// JSON-RPC or REST, speaking A2A 1.0 or 0.3.
//
// The tool is built in a throwaway module that requires the SDK, because
// `go install pkg@version` would ask the network for what the module cache
// already holds. Built once per machine and SDK version, it is reused by
// every test package after that.
package a2acli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Package is the tool's import path.
const Package = "github.com/a2aproject/a2a-go/v2/cmd/a2a"

// sdkModule is the module the tool belongs to.
const sdkModule = "github.com/a2aproject/a2a-go/v2"

// Binary returns the path of the a2a tool, building it on first use; a
// failure to build fails the test.
func Binary(t testing.TB) string {
	t.Helper()
	path, err := built()
	if err != nil {
		t.Fatalf("build the A2A SDK's a2a tool: %v", err)
	}
	return path
}

// Path is Binary for a program that packs the tool, such as the one that
// builds the kubernetes tests' image of brought agents.
func Path() (string, error) { return built() }

var built = sync.OnceValues(build)

func build() (string, error) {
	version, gosum, err := pinnedSDK()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("a2a-sdk-cli-%s-%d", version, os.Getuid()))
	bin := filepath.Join(dir, "a2a")
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, nil
	}
	mod, err := os.MkdirTemp("", "a2a-sdk-cli-module-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(mod) }()
	gomod := fmt.Sprintf("module a2aclibuild\n\ngo 1.25\n\nrequire %s %s\n", sdkModule, version)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o600); err != nil {
		return "", err
	}
	// The SDK's own go.sum vouches for its dependencies, this module's for
	// the SDK itself, so nothing needs the checksum database.
	sdkSum, err := os.ReadFile(filepath.Join(modCache(), sdkModule+"@"+version, "go.sum"))
	if err != nil {
		return "", fmt.Errorf("the SDK is not in the module cache (run go mod download): %w", err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), append(gosum, sdkSum...), 0o600); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// Built aside and renamed, so that concurrent builders never see half
	// a binary.
	tmp, err := os.CreateTemp(dir, "a2a-*.partial")
	if err != nil {
		return "", err
	}
	_ = tmp.Close()
	defer func() { _ = os.Remove(tmp.Name()) }()
	cmd := exec.CommandContext(context.Background(), "go", "build", "-mod=mod", "-trimpath", "-o", tmp.Name(), Package)
	cmd.Dir = mod
	// Static, so that it runs in an image with nothing else in it.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", Package, err, out.String())
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// pinnedSDK reads the SDK version this module requires, and this module's
// go.sum, from the module the tests run in.
func pinnedSDK() (version string, gosum []byte, err error) {
	out, err := exec.CommandContext(context.Background(), "go", "env", "GOMOD").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", nil, errors.New("tests must run inside the provider's module")
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == sdkModule {
			version = fields[1]
		} else if len(fields) >= 3 && fields[0] == "require" && fields[1] == sdkModule {
			version = fields[2]
		}
	}
	if version == "" {
		return "", nil, fmt.Errorf("%s does not require %s", gomod, sdkModule)
	}
	gosum, err = os.ReadFile(filepath.Join(filepath.Dir(gomod), "go.sum"))
	return version, gosum, err
}

func modCache() string {
	out, err := exec.CommandContext(context.Background(), "go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Protocol bindings and versions a card names, as the SDK writes them.
const (
	JSONRPC  = "JSONRPC"
	HTTPJSON = "HTTP+JSON"
	GRPC     = "GRPC"
)

// Card returns a complete A2A 1.0 agent card for the tool's --card flag:
// an agent reached at url over binding, speaking protocolVersion ("1.0", or
// "0.3" for `serve --protocol 0.3 --card-compat`), with one echo skill. The
// tool's own card, made when no --card is given, lists no skill and names
// the address it listens on.
func Card(name, url, binding, protocolVersion string) []byte {
	card := map[string]any{
		"name":        name,
		"description": name + ", served by the A2A SDK's a2a tool",
		"version":     "1.0.0",
		"supportedInterfaces": []map[string]any{{
			"url": url, "protocolBinding": binding, "protocolVersion": protocolVersion,
		}},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []string{"text"},
		"defaultOutputModes": []string{"text"},
		"skills": []map[string]any{{
			"id": "echo", "name": "echo", "description": "Answers with the message it is sent", "tags": []string{"echo"},
		}},
	}
	data, err := json.Marshal(card)
	if err != nil {
		panic(err) // a map of plain values always marshals
	}
	return data
}

// FreePort returns a TCP port free on 127.0.0.1 now, for an agent whose
// card must name its port before it starts.
func FreePort(t testing.TB) int {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// TOMLArray writes args as a TOML array of strings, for [runtime] command.
func TOMLArray(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
