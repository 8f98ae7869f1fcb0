// Package scripts holds the tests of the scripts make runs.
package scripts

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// depsRun is one run of test-deps.sh on a machine whose PATH holds nothing,
// so that the parts found on PATH (a C compiler, curl, busybox, podman, the
// docker CLI) are missing, and nothing may be installed.
type depsRun struct {
	args    []string
	require string // an A2A_REQUIRE_ variable set to 1, if any
	// terraformCLI puts an executable where scripts/terraform-cli.sh keeps
	// the Terraform CLI it builds, as if it had built it.
	terraformCLI bool
}

// depsResult is what the run printed, the summary it wrote, its exit code,
// and whether the suite's command ran.
type depsResult struct {
	output, summary string
	code            int
	ran             bool
	ranWrote        string // what the command wrote to RAN
	cli             string // the Terraform CLI terraformCLI put in place
}

// bash is the shell the script runs on, found before a test empties PATH.
func bash(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the script runs on bash, which is not on PATH: %v", err)
	}
	return path
}

func (r depsRun) do(t *testing.T) depsResult {
	t.Helper()
	bash := bash(t)
	dir := t.TempDir()
	summary, ran := filepath.Join(dir, "summary"), filepath.Join(dir, "ran")
	args := []string{"test-deps.sh"}
	for _, a := range r.args {
		args = append(args, strings.ReplaceAll(strings.ReplaceAll(a, "BASH", bash), "RAN", ran))
	}
	cmd := exec.CommandContext(t.Context(), bash, args...)
	cmd.Env = []string{"PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir, "A2A_TEST_INSTALL=no", "A2A_TEST_SUMMARY=" + summary}
	var res depsResult
	if r.terraformCLI {
		where := exec.CommandContext(t.Context(), bash, "terraform-cli.sh", "path")
		where.Env = cmd.Env
		out, err := where.Output()
		if err != nil {
			t.Fatalf("terraform-cli.sh path: %v", err)
		}
		cached := strings.TrimSpace(string(out))
		if err := os.MkdirAll(filepath.Dir(cached), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cached, []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		res.cli = cached
	}
	if r.require != "" {
		cmd.Env = append(cmd.Env, r.require+"=1")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("run %v: %v", args, err)
		}
		res.code = exit.ExitCode()
	}
	res.output = out.String()
	if b, err := os.ReadFile(summary); err == nil {
		res.summary = string(b)
	}
	wrote, statErr := os.ReadFile(ran)
	res.ran, res.ranWrote = statErr == nil, strings.TrimSpace(string(wrote))
	return res
}

func TestTestDeps(t *testing.T) {
	mark := []string{"BASH", "-c", "echo > RAN"}
	tests := []struct {
		name string
		run  depsRun
		// want lists lines the run must print and write to the summary.
		want    []string
		code    int
		wantRan bool
	}{
		{
			name: "a suite without its part is skipped with one line naming it and its package",
			run:  depsRun{args: append([]string{"run", "race"}, mark...)},
			want: []string{"race: skipped: needs a C compiler with the C library's headers (Debian: apt-get install gcc libc6-dev, done by make test as root)"},
		},
		{
			name: "CI's variable turns the skip into a failure",
			run:  depsRun{args: append([]string{"run", "race"}, mark...), require: "A2A_REQUIRE_TOOLS"},
			want: []string{"race: FAILED: A2A_REQUIRE_TOOLS=1 but it lacks a C compiler"},
			code: 1,
		},
		{
			name: "a missing part of kubernetes is named, each with its package",
			run:  depsRun{args: append([]string{"run", "test-kube"}, mark...)},
			want: []string{"test-kube: skipped: needs ", "a static busybox (Debian: apt-get install busybox-static, done", "; curl (Debian: apt-get install curl, done"},
		},
		{
			name: "the Go tests run, saying which of them skip and why",
			run:  depsRun{args: append([]string{"run", "test-go"}, mark...)},
			want: []string{
				"test-go: skips the container adapter's tests, for lack of a container engine answering the docker CLI",
				"test-go: skips the tests of agents brought in images, whose shell it is, for lack of a static busybox (Debian: apt-get install busybox-static, done",
				"test-go: skips the examples' tests, which run the curl commands the examples print, for lack of curl (Debian: apt-get install curl, done",
				"test-go: skips the acceptance tests of resource identity, terraform query and actions, which need Terraform 1.14 or newer, for lack of " +
					"Terraform v1.14.",
				"as scripts/terraform-cli.sh builds it (scripts/terraform-cli.sh builds it from the Go module proxy; make test does unless A2A_TEST_INSTALL=no)",
				"test-go: passed in ",
			},
			wantRan: true,
		},
		{
			name: "a suite that fails is recorded as failed",
			run:  depsRun{args: []string{"run", "test-go", "BASH", "-c", "exit 3"}},
			want: []string{"test-go: FAILED after "},
			code: 1,
		},
		{
			name: "under CI a missing part fails the Go tests before they run",
			run:  depsRun{args: append([]string{"run", "test-go"}, mark...), require: "A2A_REQUIRE_ENGINE"},
			want: []string{"test-go: FAILED: A2A_REQUIRE_ENGINE=1 but it lacks a container engine answering the docker CLI", "; A2A_REQUIRE_ENGINE=1 but it lacks a static busybox"},
			code: 1,
		},
		{
			name: "under CI a Terraform CLI that is not built fails the Go tests",
			run:  depsRun{args: append([]string{"run", "test-go"}, mark...), require: "A2A_REQUIRE_TOOLS"},
			want: []string{"test-go: FAILED: ", "A2A_REQUIRE_TOOLS=1 but it lacks Terraform v1.14."},
			code: 1,
		},
		{
			name:    "the Go tests are told where the Terraform CLI is",
			run:     depsRun{args: []string{"run", "test-go", "BASH", "-c", `echo "$A2A_TERRAFORM_CLI" > RAN`}, terraformCLI: true},
			want:    []string{"test-go: passed in "},
			wantRan: true,
		},
		{
			name: "an unknown suite is refused before anything runs",
			run:  depsRun{args: append([]string{"run", "tset-go"}, mark...)},
			want: []string{"unknown suite tset-go: one of test-go race test-podman test-kube"},
			code: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.run.do(t)
			if res.code != tt.code || res.ran != tt.wantRan {
				t.Fatalf("exit code %d, command ran %v; want %d, %v; it printed:\n%s", res.code, res.ran, tt.code, tt.wantRan, res.output)
			}
			if tt.run.terraformCLI && res.ranWrote != res.cli {
				t.Errorf("the command was given A2A_TERRAFORM_CLI=%q, want the cached build %q", res.ranWrote, res.cli)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.output, w) {
					t.Errorf("the output lacks %q:\n%s", w, res.output)
				}
				if tt.code != 2 && !strings.Contains(res.summary, w) {
					t.Errorf("the summary lacks %q:\n%s", w, res.summary)
				}
			}
		})
	}
}

// TestTestDepsSummary prints the lines the suites wrote under a heading.
func TestTestDepsSummary(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary")
	if err := os.WriteFile(summary, []byte("race: skipped: needs a C compiler\ntest-go: passed in 9s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bash(t), "test-deps.sh", "summary")
	cmd.Env = append(os.Environ(), "A2A_TEST_SUMMARY="+summary)
	out, err := cmd.CombinedOutput()
	want := "\nmake test: what ran and what was skipped\n  race: skipped: needs a C compiler\n  test-go: passed in 9s\n"
	if err != nil || string(out) != want {
		t.Errorf("summary printed %q (%v), want %q", out, err, want)
	}
}

// TestTestDepsPackagesInREADME keeps the README's table of what make test
// needs in step with the packages the script installs.
func TestTestDepsPackagesInREADME(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), bash(t), "test-deps.sh", "packages").Output()
	if err != nil {
		t.Fatalf("test-deps.sh packages: %v", err)
	}
	want := strings.Fields(string(out))
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(readme), "## What `make test` needs")
	if !found {
		t.Fatal("README.md has no section 'What `make test` needs'")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			listed = append(listed, strings.Fields(strings.Trim(strings.TrimSpace(cells[1]), "`"))...)
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("the README's table lists the packages %v, the script installs %v", listed, want)
	}
}

// TestPrebuildKubeNeedsItsSuite: the background build of the cluster's
// parts starts only when the kubernetes suite can run, so that a machine
// without its packages compiles nothing it cannot use, and says nothing.
func TestPrebuildKubeNeedsItsSuite(t *testing.T) {
	res := depsRun{args: []string{"prebuild-kube"}}.do(t)
	if res.code != 0 || res.output != "" || res.summary != "" {
		t.Errorf("prebuild-kube without the kubernetes suite's parts: exit code %d, printed %q, summary %q; want 0 and nothing", res.code, res.output, res.summary)
	}
}
