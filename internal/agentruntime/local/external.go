//go:build linux

package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// checkProgram finds the working directory and program of an agent the
// operator brings, so that a missing one fails before anything is recorded
// or locked. It returns the working directory as an absolute path.
func checkProgram(op, id string, cfg *agentconfig.Config) (string, error) {
	dir, err := filepath.Abs(cfg.Runtime.WorkingDir)
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(dir); err == nil && !info.IsDir() {
			err = fmt.Errorf("%s is not a directory", dir)
		}
	}
	if err != nil {
		return "", agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, err,
			"runtime.working_dir: the agent's working directory (relative to where terraform runs) must exist")
	}
	if _, err := findProgram(cfg.Runtime.Command[0], dir); err != nil {
		return "", agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, err,
			"runtime.command: the program %q cannot be run; give its path (relative to runtime.working_dir) or a name found on PATH", cfg.Runtime.Command[0])
	}
	return dir, nil
}

// placeBrought fills in the record of an agent the operator brings: where
// it runs and where its card is.
func placeBrought(rec *record, cfg *agentconfig.Config, workDir string) {
	rec.Brought = true
	rec.CardPaths = cfg.Runtime.CardPaths()
	rec.WorkingDir = workDir
	rec.CardURL = card.CardURLAt(rec.Endpoint, rec.CardPaths[0])
}

// findProgram resolves name as exec would run it from dir: a name with a
// slash is a path (relative to dir), any other is looked up on PATH.
func findProgram(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	info, err := os.Stat(name)
	switch {
	case err != nil:
		return "", err
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	return name, nil
}

// agentCommand builds the agent's process: the built-in host with the
// recorded config, or the operator's program with PORT, HOST and
// A2A_ADVERTISED_URL filled in. Either way the three are in its
// environment, last so that they win, with the allowlisted variables the
// config references.
func (r *Runtime) agentCommand(ctx context.Context, rec *record, raw []byte) (*exec.Cmd, error) {
	owned := launch.Owned{Host: rec.Host, Port: rec.Port, AdvertisedURL: rec.Endpoint}
	env := append(childEnv(rec.InjectedEnv), r.identityEnv(rec.ID, rec.ConfigSHA256, rec.Brought)...)
	writeOnlyPath, hasWriteOnly, err := r.writeOnly.Path(rec.ID)
	if err != nil {
		return nil, fmt.Errorf("find the write-only values: %w", err)
	}
	// The agent must outlive ctx and this process: nothing may cancel it.
	ctx = context.WithoutCancel(ctx)
	if !rec.Brought {
		if err := hostexe.Check(ctx, r.exe, r.version); err != nil {
			return nil, fmt.Errorf("%w; or set executable in the local block to such a host", err)
		}
		host := launch.Host{ConfigFile: r.dir.Join(configFile(rec.ID)), Owned: owned, ProviderVersion: r.version}
		if hasWriteOnly {
			// The host reads them itself, so they stay out of its environment.
			host.WriteOnlyFile = writeOnlyPath
		}
		cmd := exec.CommandContext(ctx, r.exe, host.Args()...)
		cmd.Env = slices.Concat(env, owned.Env())
		cmd.Dir = r.dir.Path()
		return cmd, nil
	}
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		return nil, err
	}
	// Write-only values never reach a program of its own: Prepare refuses
	// them for it, so it has no write-only values' file to read.
	argv, extra, err := cfg.Runtime.Expanded(agentruntime.BroughtLookup(owned, rec.InjectedEnv))
	if err != nil {
		return nil, err
	}
	for name, value := range extra {
		env = append(env, name+"="+value)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.Env = slices.Concat(env, owned.Env())
	cmd.Dir = rec.WorkingDir
	return cmd, nil
}

// probe checks the agent's card: an external agent's where it listens, at
// its card paths; the built-in host's at its recorded card URL.
func (rec *record) probe(ctx context.Context) agentruntime.CardCheck {
	if !rec.Brought {
		return agentruntime.CheckCardAt(ctx, rec.CardURL)
	}
	base := card.Endpoint("", rec.Host, rec.Port)
	return agentruntime.CheckCard(ctx, base, rec.CardPaths)
}
