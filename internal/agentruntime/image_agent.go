package agentruntime

import (
	"strconv"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// CheckImageAgent refuses what an adapter running brought agents from
// [runtime] image cannot run: an image named by a variable (it is chosen
// before the agent's environment exists), a command with no image to run
// in (the adapter's base image holds nothing but the provider), and a
// working directory (an image sets its own). adapter names the adapter in
// the messages.
func CheckImageAgent(cfg *agentconfig.Config, adapter string) error {
	rt := cfg.Runtime
	var err error
	switch {
	case agentconfig.HasReference(rt.Image):
		err = cfg.Invalid("runtime.image", "runtime.image "+strconv.Quote(rt.Image)+" must be literal: the image is chosen before the agent's environment exists")
	case len(rt.Command) > 0 && rt.Image == "":
		err = cfg.Invalid("runtime.command", "runtime.command on the "+adapter+" adapter runs in runtime.image, in place of the image's own command: set image to the image holding the program")
	case rt.WorkingDir != "":
		err = cfg.Invalid("runtime.working_dir", "runtime.working_dir is for the local adapter: an image sets its own working directory")
	}
	if err != nil {
		return &Error{Kind: KindInvalidConfig, Op: "provision", ID: cfg.ID(), Err: err}
	}
	return nil
}
