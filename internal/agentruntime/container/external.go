package container

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/moby/moby/api/types/registry"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// labelCardPaths names where an external agent serves its card; the
// built-in host's containers do without it, serving at card.WellKnownPath.
const labelCardPaths = "a2a.card-paths"

// broughtProcess returns the command and the [runtime.env] variables of an
// agent the operator brings, with PORT, HOST and A2A_ADVERTISED_URL and the
// allowlisted variables filled in. A nil command keeps the image's own.
func (b blueprint) broughtProcess(owned launch.Owned) (cmd, env []string, err error) {
	lookup := agentruntime.BroughtLookup(owned, b.injected)
	argv, extra, err := b.cfg.Runtime.Expanded(lookup)
	if err != nil {
		return nil, nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, "provision", b.cfg.ID(), err)
	}
	if len(argv) > 0 {
		cmd = argv
	}
	for name, value := range extra {
		env = append(env, name+"="+value)
	}
	return cmd, env, nil
}

// cardPaths reads where a container's agent serves its card.
func cardPaths(labels map[string]string) []string {
	if paths := splitList(labels[labelCardPaths]); len(paths) > 0 {
		return paths
	}
	return []string{card.WellKnownPath}
}

// ensureImage makes ref present on the engine as the pull policy says:
// never pulled, pulled when missing, or pulled every time.
func (r *Runtime) ensureImage(ctx context.Context, ref, policy, namedBy string) error {
	if policy == agentconfig.PullNever {
		return r.requireImage(ctx, ref, namedBy+`, with pull = "never"`)
	}
	if policy == agentconfig.PullMissing {
		if ok, err := r.imageExists(ctx, ref); ok || err != nil {
			return err
		}
	}
	res, err := r.cli.ImagePull(ctx, ref, client.ImagePullOptions{RegistryAuth: registryAuth(ctx, ref)})
	if err == nil {
		err = res.Wait(ctx)
	}
	if err != nil {
		return r.pullFailed(ref, namedBy, err)
	}
	return nil
}

// pullFailed tells an image its registry lacks, or refuses to give, from a
// registry the engine cannot reach, each with what to do about it.
func (r *Runtime) pullFailed(ref, namedBy string, err error) error {
	registry := registryOf(ref)
	const op = "provision"
	switch {
	case client.IsErrConnectionFailed(err):
		return r.engineError(op, "", err)
	case pullNotFound(err):
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"the registry %s has no image %q (named by %s), or does not show a private one to this engine: check the "+
				"name and tag, and for a private image log in with `docker login %s` on this machine, whose credentials "+
				"the provider passes to the engine", registry, ref, namedBy, registry)
	case pullDenied(err):
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"the registry %s refused to let the engine pull %q (named by %s): log in with `docker login %s` on this "+
				"machine, whose credentials the provider passes to the engine, as an account that may read the image",
			registry, ref, namedBy, registry)
	case registryUnreachable(err):
		return agentruntime.Errorf(agentruntime.KindBackend, op, "", err,
			"the container engine at %s cannot reach the registry %s to pull %q (named by %s); logging in would not "+
				"help: check that the engine's host resolves and reaches the registry (DNS, proxy, firewall), or put the "+
				"image on the engine another way (`docker load -i <archive>`) and set pull = \"never\"",
			r.engine.Host, registry, ref, namedBy)
	default:
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"the container engine at %s could not pull %q (named by %s) from %s: check the name, and for a private "+
				"image log in with `docker login %s` on this machine", r.engine.Host, ref, namedBy, registry, registry)
	}
}

// registryOf names the registry ref is pulled from, as docker login takes it.
func registryOf(ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "of the image"
	}
	return reference.Domain(named)
}

// Engines report a pull's failure as an error of a kind when they answer
// the request with it, and as the registry's message alone when it comes in
// the pull's progress stream; both are read.
var (
	notFoundMessages    = []string{"manifest unknown", "not found", "does not exist", "name unknown"}
	deniedMessages      = []string{"unauthorized", "denied", "no basic auth credentials", "authentication required", "forbidden"}
	unreachableMessages = []string{"no such host", "server misbehaving", "name resolution", "dial tcp", "connection refused",
		"network is unreachable", "no route to host", "i/o timeout", "tls handshake timeout", "connection reset"}
)

func pullNotFound(err error) bool {
	return cerrdefs.IsNotFound(err) || mentions(err, notFoundMessages)
}

func pullDenied(err error) bool {
	return cerrdefs.IsUnauthorized(err) || cerrdefs.IsPermissionDenied(err) || mentions(err, deniedMessages)
}

func registryUnreachable(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || mentions(err, unreachableMessages)
}

func mentions(err error, words []string) bool {
	msg := strings.ToLower(err.Error())
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(msg, w) })
}

// registryAuth returns the credentials for ref's registry as the docker CLI
// on this machine would send them: from its config file's credential
// helper or stored login. Anonymous ("") when it has none.
func registryAuth(ctx context.Context, ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ""
	}
	host := reference.Domain(named)
	if host == "docker.io" {
		host = "https://index.docker.io/v1/"
	}
	auth, ok := dockerCredentials(ctx, host)
	if !ok {
		return ""
	}
	data, err := json.Marshal(auth)
	if err != nil {
		return ""
	}
	return base64.URLEncoding.EncodeToString(data)
}

// dockerConfig is the part of the docker CLI's config.json that says where
// registry credentials are.
type dockerConfig struct {
	Auths       map[string]struct{ Auth, IdentityToken string } `json:"auths"`
	CredsStore  string                                          `json:"credsStore"`
	CredHelpers map[string]string                               `json:"credHelpers"`
}

func dockerCredentials(ctx context.Context, host string) (registry.AuthConfig, bool) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return registry.AuthConfig{}, false
		}
		dir = filepath.Join(home, ".docker")
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return registry.AuthConfig{}, false
	}
	var cfg dockerConfig
	if json.Unmarshal(data, &cfg) != nil {
		return registry.AuthConfig{}, false
	}
	helper := cfg.CredHelpers[host]
	if helper == "" {
		helper = cfg.CredsStore
	}
	if helper != "" {
		return helperCredentials(ctx, helper, host)
	}
	entry, ok := cfg.Auths[host]
	if !ok {
		return registry.AuthConfig{}, false
	}
	user, pass, _ := strings.Cut(decodeBase64(entry.Auth), ":")
	return registry.AuthConfig{Username: user, Password: pass, IdentityToken: entry.IdentityToken, ServerAddress: host}, true
}

// helperCredentials asks docker-credential-<helper> for host's login, the
// protocol the docker CLI uses.
func helperCredentials(ctx context.Context, helper, host string) (registry.AuthConfig, bool) {
	cmd := exec.CommandContext(ctx, "docker-credential-"+helper, "get")
	cmd.Stdin = strings.NewReader(host)
	out, err := cmd.Output()
	if err != nil {
		return registry.AuthConfig{}, false
	}
	var creds struct{ Username, Secret string }
	if json.Unmarshal(out, &creds) != nil {
		return registry.AuthConfig{}, false
	}
	auth := registry.AuthConfig{Username: creds.Username, Password: creds.Secret, ServerAddress: host}
	if creds.Username == "<token>" {
		auth = registry.AuthConfig{IdentityToken: creds.Secret, ServerAddress: host}
	}
	return auth, true
}

func decodeBase64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return ""
	}
	return string(b)
}
