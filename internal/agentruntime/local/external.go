//go:build linux

package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/secretfile"
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

// placeExternal fills in the record of an agent the operator brings: where
// it runs and where its card is.
func placeExternal(rec *record, cfg *agentconfig.Config, workDir string) {
	rec.External = true
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
// environment, with the allowlisted variables the config references.
func (r *Runtime) agentCommand(ctx context.Context, rec *record, raw []byte) (*exec.Cmd, error) {
	owned := map[string]string{
		agentconfig.PortVar:          strconv.Itoa(rec.Port),
		agentconfig.HostVar:          rec.Host,
		agentconfig.AdvertisedURLVar: rec.Endpoint,
	}
	env := append(childEnv(rec.Host, rec.InjectedEnv), r.identityEnv(rec.ID, rec.ConfigSHA256, rec.External)...)
	secretPath, hasSecrets, err := r.secrets.Path(rec.ID)
	if err != nil {
		return nil, fmt.Errorf("find the write-only values: %w", err)
	}
	// The agent must outlive ctx and this process: nothing may cancel it.
	ctx = context.WithoutCancel(ctx)
	if !rec.External {
		args := []string{"run", "--config", r.dir.Join(configFile(rec.ID)), "--port", strconv.Itoa(rec.Port)}
		if hasSecrets {
			// The host reads them itself, so they stay out of its environment.
			args = append(args, secretfile.Flag, secretPath)
		}
		cmd := exec.CommandContext(ctx, r.exe, args...)
		cmd.Env = withOwned(env, owned)
		cmd.Dir = r.dir.Path()
		return cmd, nil
	}
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		return nil, err
	}
	// Write-only values never reach a program of its own: Prepare refuses
	// them for it, so it has no secrets file to read.
	lookup := agentruntime.ExternalLookup(owned, rec.InjectedEnv)
	argv, extra, err := cfg.Runtime.Expanded(lookup)
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
	cmd.Env = withOwned(env, owned)
	cmd.Dir = rec.WorkingDir
	return cmd, nil
}

// withOwned sets the runtime's own variables last, so that they win.
func withOwned(env []string, owned map[string]string) []string {
	for _, name := range []string{agentconfig.PortVar, agentconfig.HostVar, agentconfig.AdvertisedURLVar} {
		env = append(env, name+"="+owned[name])
	}
	return env
}

// probe checks the agent's card: an external agent's where it listens, at
// its card paths; the built-in host's at its recorded card URL.
func (rec *record) probe(ctx context.Context) agentruntime.CardCheck {
	if !rec.External {
		return agentruntime.CheckCardAt(ctx, rec.CardURL)
	}
	base := card.Endpoint("", rec.Host, rec.Port)
	return agentruntime.CheckCard(ctx, base, rec.CardPaths)
}
