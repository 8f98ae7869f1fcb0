package provider

import (
	"context"
	"fmt"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// runtimeDeps is what Configure hands to resources: the runtime the provider
// block selected and the allowlist store of the state dir.
type runtimeDeps struct {
	runtime    agentruntime.Runtime
	allowlists agentruntime.AllowlistStore
}

// connectFunc builds the runtime for resolved settings. Unit tests replace
// it to run the provider's logic against the in-memory adapter.
type connectFunc func(ctx context.Context, s settings, version string) (*runtimeDeps, error)

// connect opens the state dir and the adapter the provider block selects.
func connect(ctx context.Context, s settings, version string) (*runtimeDeps, error) {
	dir, err := statedir.Open(s.stateDir)
	if err != nil {
		return nil, fmt.Errorf("open state dir %s: %w", s.stateDir, err)
	}
	var rt agentruntime.Runtime
	if s.container != nil {
		rt, err = container.New(ctx, containerOptions(s, version))
	} else {
		rt, err = local.New(local.Options{
			StateDir:        s.stateDir,
			Executable:      s.local.executable,
			StopGracePeriod: s.local.stopGracePeriod,
		})
	}
	if err != nil {
		return nil, err
	}
	return &runtimeDeps{runtime: rt, allowlists: statedir.NewAllowlists(dir)}, nil
}

func containerOptions(s settings, version string) container.Options {
	c := s.container
	return container.Options{
		Host:            c.host,
		TLSCACert:       c.tlsCACert,
		TLSCert:         c.tlsCert,
		TLSKey:          c.tlsKey,
		TLSVerify:       c.tlsVerify,
		BaseImage:       c.baseImage,
		Version:         version,
		Executable:      s.local.executable,
		StateDir:        s.stateDir,
		AdvertiseHost:   c.advertiseHost,
		Network:         c.network,
		RestartPolicy:   c.restartPolicy,
		StopGracePeriod: c.stopGracePeriod,
		Hardening: &container.Hardening{
			ReadOnlyRootfs:      c.hardening.readOnlyRootfs,
			DropAllCapabilities: c.hardening.dropAllCapabilities,
			NoNewPrivileges:     c.hardening.noNewPrivileges,
			User:                c.hardening.user,
			PidsLimit:           c.hardening.pidsLimit,
			MemoryMB:            c.hardening.memoryMB,
			CPUs:                c.hardening.cpus,
		},
	}
}
