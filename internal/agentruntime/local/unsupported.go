//go:build !linux

package local

import "github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"

// Runtime stands for the local adapter on systems it does not run on; New
// never returns one.
type Runtime struct{ agentruntime.Runtime }

// New refuses: the local adapter tells its agents from recycled pids by
// /proc start times, which only Linux provides.
func New(Options) (*Runtime, error) {
	return nil, agentruntime.Unsupported("configure provider", "",
		"the local adapter runs on Linux only; use a container {} block in the provider to run agents on a Docker or Podman engine")
}

// Supervise refuses: there are no local agents to supervise here.
func Supervise([]string) int { return 2 }
