package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// ImageRepository names the base images built from the agent host, tagged
// with the provider's release.
const ImageRepository = "terraform-provider-a2a"

// binaryInImage is where the agent host sits in the base image.
const binaryInImage = "/" + launch.HostExecutable

// buildLockKey is the state dir lock that serialises base image builds,
// within this process and between processes; no agent's lock key
// (container-a2a-...) can be the same.
const buildLockKey = "container-image-build"

// labelHostRelease marks a base image with the release of the agent host
// it holds: a base_image of another release than the provider's is refused
// at plan, before any agent runs it.
const labelHostRelease = "a2a.host-release"

// labelDevelopmentBuild marks the base images of development builds with
// the place their executable was built at (a digest of its path): each
// rebuild there makes a new image, which supersedes the images of the
// earlier builds from the same place. Builds from other places (other
// checkouts, other test runs) are left alone.
const labelDevelopmentBuild = "a2a.development-build"

// developmentVersions do not identify a binary, so their images are tagged
// by the executable's content instead: a rebuilt binary gets a new image.
var developmentVersions = map[string]bool{"": true, "dev": true, "test": true}

// invalidTagChars are those an image tag may not hold (semver build
// metadata's "+", for one).
var invalidTagChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// baseImageDockerfile runs the agent host as an unprivileged user in an
// otherwise empty image: the host is static, so it needs nothing else.
var baseImageDockerfile = fmt.Sprintf(`FROM scratch
COPY %[1]s %[2]s
USER %[3]s
EXPOSE %[4]d
ENTRYPOINT ["%[2]s"]
`, filepath.Base(binaryInImage), binaryInImage, DefaultUser, containerPort)

// BaseImage returns the image agents without their own image run, building
// the default one from the agent host when the engine lacks it.
func (r *Runtime) BaseImage(ctx context.Context) (string, error) {
	ref, err := r.baseImageRef()
	switch {
	case err != nil:
		return "", err
	case r.opts.BaseImage != "":
		return ref, r.requireBaseImage(ctx)
	}
	if ok, err := r.imageExists(ctx, ref); ok || err != nil {
		return ref, err
	}
	lock, err := r.opts.StateDir.LockKey(ctx, buildLockKey)
	if err != nil {
		return "", fmt.Errorf("wait for another provider process building the agent image: %w", err)
	}
	defer lock.Unlock()
	// Another goroutine or process may have built it while this one waited.
	if ok, err := r.imageExists(ctx, ref); ok || err != nil {
		return ref, err
	}
	return ref, r.buildBaseImage(ctx, ref)
}

// baseImageRef is the base image's reference: the one set, else the
// default one.
func (r *Runtime) baseImageRef() (string, error) {
	if r.opts.BaseImage != "" {
		return r.opts.BaseImage, nil
	}
	return r.defaultImageRef()
}

// DefaultImageRef is the base image a provider of version builds from
// the agent host executable when no base_image is set, for whoever cleans
// up after it.
func DefaultImageRef(version, executable string) (string, error) {
	return (&Runtime{opts: Options{Version: version, Executable: executable}}).defaultImageRef()
}

// defaultImageRef is terraform-provider-a2a:<version>, or the host's
// content hash for development builds.
func (r *Runtime) defaultImageRef() (string, error) {
	if !developmentVersions[r.opts.Version] {
		return ImageRepository + ":" + invalidTagChars.ReplaceAllString(r.opts.Version, "-"), nil
	}
	sum, err := r.executableDigest()
	if err != nil {
		return "", err
	}
	return ImageRepository + ":dev-" + sum[:16], nil
}

// executableDigest hashes the host executable once per Runtime.
func (r *Runtime) executableDigest() (string, error) {
	r.digestOnce.Do(func() {
		f, err := os.Open(r.opts.Executable)
		if err != nil {
			r.digestErr = fmt.Errorf("read the agent host to build the agent image from: %w", err)
			return
		}
		defer func() { _ = f.Close() }()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			r.digestErr = fmt.Errorf("read the agent host %s: %w", r.opts.Executable, err)
			return
		}
		r.digest = hex.EncodeToString(h.Sum(nil))
	})
	return r.digest, r.digestErr
}

func (r *Runtime) imageExists(ctx context.Context, ref string) (bool, error) {
	_, ok, err := r.inspectImage(ctx, ref)
	return ok, err
}

// inspectImage reads the image's labels, if the engine has it.
func (r *Runtime) inspectImage(ctx context.Context, ref string) (map[string]string, bool, error) {
	res, err := r.cli.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		var labels map[string]string
		if res.Config != nil {
			labels = res.Config.Labels
		}
		return labels, true, nil
	case cerrdefs.IsNotFound(err):
		return nil, false, nil
	default:
		return nil, false, r.engineError("inspect image "+ref, "", err)
	}
}

// BaseImageSetting is the provider block setting that names the base image.
const BaseImageSetting = "container.base_image"

// requireBaseImage fails, blaming the provider block's base_image, when
// the engine lacks that image, which is never pulled, or when the image
// says it holds an agent host of another release than the provider's. An
// image that does not say is left to its host, which refuses a provider of
// another release when it starts.
func (r *Runtime) requireBaseImage(ctx context.Context) error {
	ref := r.opts.BaseImage
	labels, ok, err := r.inspectImage(ctx, ref)
	var e *agentruntime.Error
	switch release, labelled := labels[labelHostRelease]; {
	case err != nil:
		return err
	case !ok:
		e = agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", "", nil,
			"%s. It is the provider block's base_image (provider \"a2a\" { container { base_image = %q } }), which the "+
				"provider never pulls: %s, or fix the name; or leave base_image out, and the provider builds a base image of "+
				"its own from the agent host beside it",
			r.absentImage(ctx, ref), ref, putImage(ref))
	case labelled && r.opts.Version != "" && release != r.opts.Version:
		e = agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", "", nil,
			"the provider block's base_image %q holds the %s of release %q (its label %s), and this provider is of release %q: "+
				"a host and a provider of different releases are never mixed. Build the image from the %s of release %q, "+
				"which that release's archive holds, or leave base_image out, and the provider builds one of its own from it",
			ref, launch.HostExecutable, release, labelHostRelease, r.opts.Version, launch.HostExecutable, r.opts.Version)
	default:
		return nil
	}
	e.Setting = BaseImageSetting
	return e
}

// requireImage fails clearly when an image named by the operator is absent:
// nothing is pulled, so it has to be put on the engine first.
func (r *Runtime) requireImage(ctx context.Context, ref, namedBy string) error {
	ok, err := r.imageExists(ctx, ref)
	if err != nil || ok {
		return err
	}
	return agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", "", nil,
		"%s, and %s does not let it be pulled: %s, then apply again", r.absentImage(ctx, ref), namedBy, putImage(ref))
}

// absentImage says that ref is not on the engine and, when the engine
// holds other tags of its repository, which: a mistyped tag reads as one
// of them.
func (r *Runtime) absentImage(ctx context.Context, ref string) string {
	msg := fmt.Sprintf("image %q is not on the container engine at %s", ref, r.engine.Host)
	if tags := r.tagsOfRepository(ctx, ref); len(tags) > 0 {
		msg += fmt.Sprintf(" (it holds %s)", strings.Join(tags, ", "))
	}
	return msg
}

// maxTagsNamed bounds how many tags of a repository an error names.
const maxTagsNamed = 5

// tagsOfRepository lists, sorted, up to maxTagsNamed images the engine
// holds of ref's repository; none when it cannot tell.
func (r *Runtime) tagsOfRepository(ctx context.Context, ref string) []string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return nil
	}
	repo := reference.FamiliarName(named)
	res, err := r.cli.ImageList(ctx, client.ImageListOptions{Filters: client.Filters{}.Add("reference", repo)})
	if err != nil {
		return nil
	}
	var tags []string
	for _, img := range res.Items {
		for _, tag := range img.RepoTags {
			if t, err := reference.ParseNormalizedNamed(tag); err == nil && reference.FamiliarName(t) == repo {
				tags = append(tags, reference.FamiliarString(t))
			}
		}
	}
	slices.Sort(tags)
	tags = slices.Compact(tags)
	return tags[:min(len(tags), maxTagsNamed)]
}

// putImage says how an operator puts image ref on the engine: each command
// works as written, run where the docker CLI reaches that engine.
func putImage(ref string) string {
	return fmt.Sprintf("put it there with `docker pull %s` (from its registry), `docker load -i <archive>` (an image "+
		"saved with docker save) or `docker build -t %s <directory of its Dockerfile>`, run against that engine", ref, ref)
}

// buildBaseImage sends the agent host, once it is found to be of the
// provider's release, and a Dockerfile to the engine's build API; no
// registry and no local docker CLI are involved.
func (r *Runtime) buildBaseImage(ctx context.Context, ref string) error {
	op := "build agent image " + ref
	if err := hostexe.Check(ctx, r.opts.Executable, r.opts.Version); err != nil {
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"the base image is built from it; or set the provider's container base_image to an image holding such a host")
	}
	if err := checkStaticLinux(r.opts.Executable); err != nil {
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"set the provider's container base_image to an image holding the agent host's static linux build")
	}
	buildContext, err := baseImageContext(r.opts.Executable)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	labels := map[string]string{labelManagedBy: managedByValue}
	if r.opts.Version != "" {
		labels[labelHostRelease] = r.opts.Version
	}
	development := developmentVersions[r.opts.Version]
	if development {
		labels[labelDevelopmentBuild] = r.buildPlace()
	}
	res, err := r.cli.ImageBuild(ctx, buildContext, client.ImageBuildOptions{
		Tags:        []string{ref},
		Remove:      true,
		ForceRemove: true,
		Labels:      labels,
	})
	if err != nil {
		return r.engineError(op, "", err)
	}
	defer func() { _ = res.Body.Close() }()
	if err := readBuildOutput(res.Body); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, "", err, "the container engine at %s could not build it", r.engine.Host)
	}
	if development {
		r.pruneSuperseded(ctx, ref)
	}
	return nil
}

// buildPlace digests the executable's path, which names where it was built
// without putting a path of this machine on the engine.
func (r *Runtime) buildPlace() string {
	sum := sha256.Sum256([]byte(r.opts.Executable))
	return hex.EncodeToString(sum[:8])
}

// pruneSuperseded removes the base images that earlier development builds
// from the same place left, now that current (just built) replaces them:
// each is some 20 MB, and nothing else would ever remove them. Only images
// carrying both of this adapter's labels are considered. Pruning is best
// effort: an image a container still uses is refused by the engine and
// stays, to go at a later build, and no failure here fails the build.
func (r *Runtime) pruneSuperseded(ctx context.Context, current string) {
	keep, err := r.cli.ImageInspect(ctx, current)
	if err != nil {
		return
	}
	res, err := r.cli.ImageList(ctx, client.ImageListOptions{Filters: client.Filters{}.
		Add("label", labelManagedBy+"="+managedByValue, labelDevelopmentBuild+"="+r.buildPlace())})
	if err != nil {
		return
	}
	for _, img := range res.Items {
		// Labels checked again here: Podman matches an image that has any
		// one of the labels filtered on, where Docker asks for all of them.
		mine := img.Labels[labelManagedBy] == managedByValue && img.Labels[labelDevelopmentBuild] == r.buildPlace()
		if !mine || img.ID == keep.ID {
			continue
		}
		var refs []string
		for _, tag := range img.RepoTags {
			if tag != "<none>:<none>" {
				refs = append(refs, tag)
			}
		}
		if len(refs) == 0 {
			refs = []string{img.ID}
		}
		for _, ref := range refs {
			// No force: the engine refuses to remove an image a container
			// uses, which is what should happen.
			_, _ = r.cli.ImageRemove(ctx, ref, client.ImageRemoveOptions{PruneChildren: true})
		}
	}
}

// checkStaticLinux refuses executables that cannot run in a scratch image.
func checkStaticLinux(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("the agent host %s is not a linux binary, so it cannot run in a container: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("the agent host %s is dynamically linked (build it with CGO_ENABLED=0), so it cannot run in an empty image", path)
		}
	}
	return nil
}

// baseImageContext is the build context: the Dockerfile and the host.
func baseImageContext(executable string) (io.Reader, error) {
	bin, err := os.ReadFile(executable)
	if err != nil {
		return nil, fmt.Errorf("read the agent host: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"Dockerfile", 0o644, []byte(baseImageDockerfile)},
		{filepath.Base(binaryInImage), 0o755, bin},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

// readBuildOutput drains the build's JSON message stream, which is where
// the engine reports a failed build, and keeps the last lines as context.
func readBuildOutput(body io.Reader) error {
	dec := json.NewDecoder(body)
	var last []string
	for {
		var msg struct {
			Stream      string `json:"stream"`
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		err := dec.Decode(&msg)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read build output: %w", err)
		}
		if msg.ErrorDetail != nil && msg.ErrorDetail.Message != "" {
			msg.Error = msg.ErrorDetail.Message
		}
		if msg.Error != "" {
			return fmt.Errorf("%s (after: %v)", msg.Error, last)
		}
		if msg.Stream != "" {
			last = append(last, msg.Stream)
			if len(last) > 5 {
				last = last[1:]
			}
		}
	}
}
