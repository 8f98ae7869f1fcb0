package container

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/writeonly"
)

// An agent's write-only values live in a file in a volume of its container,
// mounted at launch.WriteOnlyDir, which the engine keeps across restarts (a
// restart policy's included). They are neither in the container's environment nor
// its labels, so `docker inspect` does not show them; whoever may use the
// engine can still read the file (docker cp, docker exec), and root on the
// engine host can read the volume's directory. A tmpfs would not outlive a
// restart, and engine secrets need Swarm.
//
// The adapter creates the volume, one per container, labelled as the
// agent's (Podman labels no anonymous volume), and removes it with its
// container, and any of the agent's that no container mounts: what a
// container removed behind the adapter's back (`docker rm`) or a create cut
// short by a crash left, with the values in it. The next provision that
// makes the agent's container anew, and its deprovision, remove those.
// Containers made before volumes were the adapter's have an anonymous one,
// which goes with them.

// labelWriteOnly names the write-only variables (never values), so that a
// container recreated from its own record mounts and passes the file.
const labelWriteOnly = "a2a.write-only-env"

// labelWriteOnlyVersion records env_wo_version, so that an imported agent
// reads it back.
const labelWriteOnlyVersion = "a2a.write-only-version"

// withWriteOnlyMount mounts the volume of the container's write-only values,
// which the host is told to read (createOptions). Create makes the volume
// after the spec digest is taken, so that the digest is what it was with
// anonymous volumes.
func withWriteOnlyMount(host *containertypes.HostConfig) {
	host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeVolume, Target: launch.WriteOnlyDir})
}

// withWriteOnlyVolume creates the volume of want's write-only values,
// labelled as agent id's, and returns want mounting it; want without such a
// mount is returned as it is, with no volume. The engine names the volume,
// so no other can have its name.
func (r *Runtime) withWriteOnlyVolume(ctx context.Context, op, id string, want client.ContainerCreateOptions) (client.ContainerCreateOptions, string, error) {
	i := slices.IndexFunc(want.HostConfig.Mounts, func(m mount.Mount) bool {
		return m.Type == mount.TypeVolume && m.Target == launch.WriteOnlyDir && m.Source == ""
	})
	if i < 0 {
		return want, "", nil
	}
	res, err := r.cli.VolumeCreate(ctx, client.VolumeCreateOptions{Labels: map[string]string{
		labelManagedBy: managedByValue, labelScope: r.opts.Scope, labelAgentID: id,
	}})
	if err != nil {
		return want, "", r.engineError(op, id, err)
	}
	host := *want.HostConfig
	host.Mounts = slices.Clone(host.Mounts)
	host.Mounts[i].Source = res.Volume.Name
	want.HostConfig = &host
	return want, res.Volume.Name, nil
}

// removeOrphanedVolumes removes the agent's volumes that none of its
// containers mounts, holding write-only values no one reads any more. Only
// volumes labelled as the agent's go, and the engine refuses to remove one
// in use; the agent's lock keeps its own creations out of the way.
func (r *Runtime) removeOrphanedVolumes(ctx context.Context, op, id string) error {
	res, err := r.cli.VolumeList(ctx, client.VolumeListOptions{Filters: client.Filters{}.
		Add("label", labelManagedBy+"="+managedByValue, labelScope+"="+r.opts.Scope, labelAgentID+"="+id)})
	if err != nil {
		return r.engineError(op, id, err)
	}
	containers, err := r.containersOf(ctx, op, id)
	if err != nil {
		return err
	}
	mounted := map[string]bool{}
	for _, c := range containers {
		for _, m := range c.Mounts {
			mounted[m.Name] = true
		}
	}
	for _, v := range res.Items {
		if mounted[v.Name] || !r.owns(v.Labels, id) {
			continue
		}
		_, err := r.cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{})
		switch {
		case err == nil, cerrdefs.IsNotFound(err):
		case cerrdefs.IsConflict(err):
			// Mounted by a container that is not the agent's.
		default:
			return r.engineError(op, id, err)
		}
	}
	return nil
}

// putWriteOnly puts values into the volume of container containerID. The
// file is the container user's, readable by it alone.
func (r *Runtime) putWriteOnly(ctx context.Context, op, id, containerID string, values agentruntime.WriteOnlyValues) error {
	data, err := writeonly.Encode(values)
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "encode the write-only values")
	}
	return r.copyWriteOnly(ctx, op, id, containerID, data)
}

// carryWriteOnly copies the write-only values from the container a recreated
// one replaces, which the runtime was not given again.
func (r *Runtime) carryWriteOnly(ctx context.Context, op, id, from, to string) error {
	res, err := r.cli.CopyFromContainer(ctx, from, client.CopyFromContainerOptions{SourcePath: launch.WriteOnlyFilePath})
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
	return r.copyWriteOnly(ctx, op, id, to, data)
}

func (r *Runtime) copyWriteOnly(ctx context.Context, op, id, containerID string, data []byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := r.writeOnlyOwner()
	hdr.Name, hdr.Size, hdr.ModTime = launch.WriteOnlyFileName, int64(len(data)), time.Now()
	if err := tw.WriteHeader(hdr); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if _, err := tw.Write(data); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if err := tw.Close(); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "pack the write-only values")
	}
	if _, err := r.cli.CopyToContainer(ctx, containerID, client.CopyToContainerOptions{DestinationPath: launch.WriteOnlyDir, Content: &buf}); err != nil {
		return r.engineError(op, id, err)
	}
	return nil
}

// writeOnlyOwner is the file's owner and mode: the container's user alone may
// read it when the user is numeric, as the hardening default is. A user
// named, or the image's own, cannot be resolved without the image's passwd
// database (engines refuse to look it up in an image that has none), so
// the file is then readable by every user of the container.
func (r *Runtime) writeOnlyOwner() *tar.Header {
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
