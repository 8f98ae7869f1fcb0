package container

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// labelSettings records, as JSON, the provider settings a container was
// made with (settings). It is set after the spec digest, which covers what
// the settings do to the container already, so that containers made before
// it keep theirs.
const labelSettings = "a2a.settings"

// The provider block attributes whose values reach an agent's container,
// as AgentSettings and Agent.Settings name them.
const (
	settingBaseImage       = "container.base_image"
	settingNetwork         = "container.network"
	settingRestartPolicy   = "container.restart_policy"
	settingStopGracePeriod = "container.stop_grace_period"
	settingHardening       = "container.hardening"
)

// AgentSettings are the settings a container made now for the agent of cfg
// would carry. A base image whose reference cannot be told (an unreadable
// executable) is left out: provisioning says why.
func (r *Runtime) AgentSettings(cfg *agentconfig.Config, _ agentruntime.Workload, _ int) map[string]string {
	image := cfg.Runtime.Image
	if image == "" {
		image, _ = r.baseImageRef()
	}
	return r.settings(cfg, image)
}

// settings are the settings of a container running image for the agent of
// cfg; an agent brought in an image of its own takes no base image.
func (r *Runtime) settings(cfg *agentconfig.Config, image string) map[string]string {
	h := r.opts.Hardening
	s := map[string]string{
		settingNetwork:         r.opts.Network,
		settingRestartPolicy:   r.opts.RestartPolicy,
		settingStopGracePeriod: (time.Duration(r.opts.graceSeconds()) * time.Second).String(),
		settingHardening: fmt.Sprintf("read_only_rootfs=%t drop_all_capabilities=%t no_new_privileges=%t user=%q pids_limit=%d memory_mb=%d cpus=%g",
			h.ReadOnlyRootfs, h.DropAllCapabilities, h.NoNewPrivileges, h.User, h.PidsLimit, h.MemoryMB, h.CPUs),
	}
	if cfg.Runtime.Image == "" && image != "" {
		s[settingBaseImage] = image
	}
	return s
}

// settingsLabel encodes settings for labelSettings.
func settingsLabel(settings map[string]string) string {
	data, _ := json.Marshal(settings) // a map of strings always encodes
	return string(data)
}

// settingsOf reads labelSettings; nil when the container has none or it
// does not parse.
func settingsOf(labels map[string]string) map[string]string {
	var settings map[string]string
	if raw := labels[labelSettings]; raw == "" || json.Unmarshal([]byte(raw), &settings) != nil {
		return nil
	}
	return settings
}
