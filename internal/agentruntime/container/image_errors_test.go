package container

import (
	"archive/tar"
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestImageMissing: an image that is not on the engine, and that the
// provider may not pull, fails naming it, who named it and commands that
// put it there as written (docker build with its build context).
func TestImageMissing(t *testing.T) {
	absent := "a2a-test-absent:" + newScope(t)
	tests := []struct {
		name        string
		opts        func(*Options)
		cfg         []byte
		wantSetting string
		want        []string
	}{
		{"runtime image", func(*Options) {}, agentConfig("Own Image", "[runtime]", `image = "`+absent+`"`, `pull = "never"`), "",
			[]string{`[runtime] image of agent "own-image", with pull = "never" does not let it be pulled`}},
		{"base image", func(o *Options) { o.BaseImage = absent }, agentConfig("Base Image"), BaseImageSetting,
			[]string{`provider "a2a" { container { base_image = "` + absent + `" } }`, "never pulls", "leave base_image out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions(t, newScope(t))
			tt.opts(&opts)
			rt := newRuntime(t, opts)
			_, err := rt.Provision(testContext(t), agentruntime.Spec{Config: tt.cfg})
			want := append([]string{absent + `" is not on the container engine`, "docker load -i <archive>",
				"docker build -t " + absent + " <directory of its Dockerfile>"}, tt.want...)
			checkImageError(t, "Provision", err, tt.wantSetting, want)
		})
	}
}

// TestBaseImageCheckedAtPlan: Check, which plan calls, finds a base_image
// the engine lacks and names the tags of its repository the engine holds,
// which a mistyped tag reads as; an agent that runs its own image does not
// need the base image.
func TestBaseImageCheckedAtPlan(t *testing.T) {
	opts := testOptions(t, newScope(t))
	repo := "a2a-test-base-" + opts.Scope
	opts.BaseImage = repo + ":1.4"
	rt := newRuntime(t, opts)
	present := repo + ":1.4.0"
	buildEmptyImage(t, rt, present, nil)

	_, err := rt.Check(testContext(t), agentruntime.Spec{Config: agentConfig("Mistyped Base")})
	checkImageError(t, "Check", err, BaseImageSetting, []string{`"` + opts.BaseImage + `" is not on the container engine`, "(it holds " + present + ")"})
	own := agentConfig("Own Image", "[runtime]", `image = "`+present+`"`, `pull = "never"`, `command = ["/a2a"]`)
	if _, err := rt.Check(testContext(t), agentruntime.Spec{Config: own}); err != nil {
		t.Errorf("Check of an agent with an image of its own = %v, want nil: it does not run the base image", err)
	}
	opts.BaseImage = present
	if _, err := newRuntime(t, opts).Check(testContext(t), agentruntime.Spec{Config: agentConfig("Present Base")}); err != nil {
		t.Errorf("Check with a base image the engine holds = %v, want nil", err)
	}
}

func checkImageError(t *testing.T, op string, err error, wantSetting string, want []string) {
	t.Helper()
	if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) {
		t.Fatalf("%s = %v, want an invalid config error", op, err)
	}
	if got := agentruntime.SettingOf(err); got != wantSetting {
		t.Errorf("%s blames setting %q, want %q", op, got, wantSetting)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s = %v\nwant it to say %q", op, err, w)
		}
	}
}

// TestPullFailures pulls through the engine from registries that cannot
// be reached, that refuse the pull and that lack the image, and checks
// that each failure says which it is: a login helps only the second.
func TestPullFailures(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	tests := []struct {
		name string
		// registry serves the test's registry; nil for one the test names.
		registry func(w http.ResponseWriter, r *http.Request)
		ref      string // with a registry, the repository and tag under it
		kind     agentruntime.Kind
		want     []string
		// plainHTTP: the engine must pull over plain HTTP from 127.0.0.1,
		// which Docker does and Podman refuses unless configured to.
		plainHTTP bool
	}{
		{name: "unresolvable", ref: "registry.invalid/a2a/agent:1", kind: agentruntime.KindBackend,
			want: []string{"cannot reach the registry registry.invalid", "logging in would not help", "DNS"}},
		{name: "refused connection", ref: closedPortRegistry(t) + "/a2a/agent:1", kind: agentruntime.KindBackend,
			want: []string{"cannot reach the registry 127.0.0.1:", "logging in would not help"}},
		{name: "denied", registry: deniedRegistry, ref: "a2a/agent:1", kind: agentruntime.KindInvalidConfig, plainHTTP: true,
			want: []string{"refused to let the engine pull", "docker login 127.0.0.1:"}},
		{name: "no such image", registry: emptyRegistry, ref: "a2a/agent:1", kind: agentruntime.KindInvalidConfig, plainHTTP: true,
			want: []string{"has no image", "check the name and tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.plainHTTP && enginePodman(t, rt) {
				t.Skip("Podman pulls only over TLS from a registry it is not configured to trust, and the test registry speaks plain HTTP")
			}
			ref := tt.ref
			if tt.registry != nil {
				srv := httptest.NewServer(http.HandlerFunc(tt.registry))
				t.Cleanup(srv.Close)
				ref = strings.TrimPrefix(srv.URL, "http://") + "/" + ref
			}
			err := rt.ensureImage(testContext(t), ref, "always", "the test")
			if !agentruntime.IsKind(err, tt.kind) {
				t.Fatalf("pull %s = %v, want an error of kind %d", ref, err, tt.kind)
			}
			for _, w := range append([]string{`"` + ref + `" (named by the test)`}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("pull %s = %v\nwant it to say %q", ref, err, w)
				}
			}
		})
	}
}

// deniedRegistry asks for credentials, as a private registry does of an
// engine that has not logged in.
func deniedRegistry(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Docker-Distribution-Api-Version", "registry/2.0")
	w.Header().Set("Www-Authenticate", `Basic realm="a2a-test"`)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`))
}

// emptyRegistry is a registry that holds no image.
func emptyRegistry(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Docker-Distribution-Api-Version", "registry/2.0")
	if r.URL.Path == "/v2/" {
		_, _ = w.Write([]byte(`{}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`))
}

// closedPortRegistry names a registry on a loopback port nothing listens on.
func closedPortRegistry(t *testing.T) string {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// enginePodman reports whether the engine is Podman's Docker-compatible API.
func enginePodman(t *testing.T, rt *Runtime) bool {
	t.Helper()
	v, err := rt.cli.ServerVersion(testContext(t), client.ServerVersionOptions{})
	if err != nil {
		t.Fatalf("ask the engine its version: %v", err)
	}
	for _, c := range v.Components {
		if strings.Contains(strings.ToLower(c.Name), "podman") {
			return true
		}
	}
	return false
}

// buildEmptyImage builds ref, an image of no files, which the test removes
// again.
func buildEmptyImage(t *testing.T, rt *Runtime, ref string, labels map[string]string) {
	t.Helper()
	dockerfile := []byte("FROM scratch\nLABEL a2a.test=empty\n")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(dockerfile)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := rt.cli.ImageBuild(testContext(t), &buf, client.ImageBuildOptions{Tags: []string{ref}, Remove: true, Labels: labels})
	if err != nil {
		t.Fatalf("build %s: %v", ref, err)
	}
	defer func() { _ = res.Body.Close() }()
	if err := readBuildOutput(res.Body); err != nil {
		t.Fatalf("build %s: %v", ref, err)
	}
	t.Cleanup(func() { removeImageIfPresent(t, ref) })
}
