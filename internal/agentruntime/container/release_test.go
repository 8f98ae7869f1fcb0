package container

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestHostOfAnotherRelease: agents never run an agent host of another
// release than the provider's. The default base image is built only from
// a host of the provider's release; a base_image labelled with another
// release is refused at plan; and the host in an image that says nothing
// refuses to serve, saying why in the agent's log.
func TestHostOfAnotherRelease(t *testing.T) {
	needEngine(t)
	t.Run("default base image", func(t *testing.T) {
		opts := testOptions(t, newScope(t))
		opts.Version = "1.2.0"
		rt := newRuntime(t, opts)
		ref, err := rt.defaultImageRef()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { removeImageIfPresent(t, ref) })
		_, err = rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("Default Base")})
		checkImageError(t, "Provision", err, "", []string{opts.Executable, `is of release "test"`, `provider of release "1.2.0"`,
			`a2a-agent-host of release "1.2.0"`, "container base_image"})
		if ok, err := rt.imageExists(testContext(t), ref); ok || err != nil {
			t.Errorf("image %s exists (%v) after the host was refused, want none built", ref, err)
		}
	})
	t.Run("labelled base_image", func(t *testing.T) {
		opts := testOptions(t, newScope(t))
		opts.BaseImage = "a2a-test-release:" + opts.Scope
		rt := newRuntime(t, opts)
		buildEmptyImage(t, rt, opts.BaseImage, map[string]string{labelHostRelease: "0.9.0"})
		_, err := rt.Check(testContext(t), agentruntime.Spec{Config: agentConfig("Labelled Base")})
		checkImageError(t, "Check", err, BaseImageSetting, []string{`base_image "` + opts.BaseImage + `"`, `a2a-agent-host of release "0.9.0"`,
			`provider is of release "test"`, `Build the image from the a2a-agent-host of release "test"`})
	})
	t.Run("unlabelled base_image", func(t *testing.T) {
		opts := testOptions(t, newScope(t))
		opts.RestartPolicy = "no"
		rt := newRuntime(t, opts)
		opts.BaseImage = buildForeignImage(t, rt) // the host of release "test", unlabelled
		opts.Version = "1.2.0"
		rt = newRuntime(t, opts)
		ctx := testContext(t)
		a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Unlabelled Base")})
		if err != nil {
			t.Fatalf("Provision: %v", err)
		}
		if err := rt.Start(ctx, a.ID); err != nil {
			t.Fatalf("Start: %v", err)
		}
		wait, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if h, err := agentruntime.WaitHealthy(wait, rt, a.ID); err == nil {
			t.Fatalf("WaitHealthy = %s; want the host to refuse to serve", h)
		}
		logs, err := rt.Logs(ctx, a.ID, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(logs, "\n"); !strings.Contains(got, `provider starting it of release "1.2.0"`) {
			t.Errorf("agent log %q, want the host's refusal of a provider of release 1.2.0", got)
		}
	})
}
