package container

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/secretfile"
)

// An agent's write-only values live in a file in an anonymous volume of its
// container, mounted at secretDir, which the engine keeps across restarts
// (a restart policy's included) and removes with the container. They are
// neither in the container's environment nor its labels, so `docker
// inspect` does not show them; whoever may use the engine can still read
// the file (docker cp, docker exec), and root on the engine host can read
// the volume's directory. A tmpfs would not outlive a restart, and engine
// secrets need Swarm.
const (
	secretDir  = "/run/a2a"
	secretName = "env.json"
	// labelWriteOnly names the write-only variables (never values), so that
	// a container recreated from its own record mounts and passes the file.
	labelWriteOnly = "a2a.write-only-env"
)

var secretPath = path.Join(secretDir, secretName)

// withSecrets makes the container read its write-only values from the
// volume: the mount and the host's flag.
func withSecrets(cfg *containertypes.Config, host *containertypes.HostConfig) {
	host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeVolume, Target: secretDir})
	cfg.Cmd = append(cfg.Cmd, secretfile.Flag, secretPath)
}

// writeSecrets puts values into the volume of container containerID. The
// file is the container user's, readable by it alone.
func (r *Runtime) writeSecrets(ctx context.Context, op, id, containerID string, values agentruntime.SecretValues) error {
	data, err := secretfile.Encode(values)
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "encode the write-only values")
	}
	return r.copySecrets(ctx, op, id, containerID, data)
}

// carrySecrets copies the write-only values from the container a recreated
// one replaces, which the runtime was not given again.
func (r *Runtime) carrySecrets(ctx context.Context, op, id, from, to string) error {
	res, err := r.cli.CopyFromContainer(ctx, from, client.CopyFromContainerOptions{SourcePath: secretPath})
	if err != nil {
		return r.engineError(op, id, err)
	}
	defer func() { _ = res.Content.Close() }()
	tr := tar.NewReader(res.Content)
	if _, err := tr.Next(); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the write-only values of the container being replaced")
	}
	data, err := io.ReadAll(io.LimitReader(tr, 1<<20))
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the write-only values of the container being replaced")
	}
	return r.copySecrets(ctx, op, id, to, data)
}

func (r *Runtime) copySecrets(ctx context.Context, op, id, containerID string, data []byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := r.secretOwner()
	hdr.Name, hdr.Size, hdr.ModTime = secretName, int64(len(data)), time.Now()
	if err := tw.WriteHeader(hdr); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if _, err := tw.Write(data); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if err := tw.Close(); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if _, err := r.cli.CopyToContainer(ctx, containerID, client.CopyToContainerOptions{DestinationPath: secretDir, Content: &buf}); err != nil {
		return r.engineError(op, id, err)
	}
	return nil
}

// secretOwner is the file's owner and mode: the container's user alone may
// read it when the user is numeric, as the hardening default is. A user
// named, or the image's own, cannot be resolved without the image's passwd
// database (engines refuse to look it up in an image that has none), so
// the file is then readable by every user of the container.
func (r *Runtime) secretOwner() *tar.Header {
	uid, gid, ok := numericUser(r.opts.Hardening.User)
	if !ok {
		return &tar.Header{Mode: 0o444}
	}
	return &tar.Header{Mode: 0o400, Uid: uid, Gid: gid}
}

// numericUser parses "uid" or "uid:gid".
func numericUser(user string) (uid, gid int, ok bool) {
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil || uid < 0 {
		return 0, 0, false
	}
	if !hasGroup {
		return uid, uid, true
	}
	gid, err = strconv.Atoi(g)
	if err != nil || gid < 0 {
		return 0, 0, false
	}
	return uid, gid, true
}
