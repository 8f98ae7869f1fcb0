package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestNewWithoutKubeconfig needs no cluster: with no kubeconfig to read,
// New names the files it looked for and the provider's kubeconfig setting
// and KUBECONFIG, not client-go's KUBERNETES_MASTER.
func TestNewWithoutKubeconfig(t *testing.T) {
	tmp := t.TempDir()
	missingFile := filepath.Join(tmp, "missing")
	other := filepath.Join(tmp, "also-missing")
	empty := filepath.Join(tmp, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := statedirtest.Open(t, t.TempDir())
	tests := []struct {
		name       string
		kubeconfig string // the provider's setting
		env        string // KUBECONFIG
		want       []string
	}{
		{name: "KUBECONFIG names a missing file", env: missingFile,
			want: []string{"the files KUBECONFIG lists", `"` + missingFile + `"`, "it does not exist"}},
		{name: "KUBECONFIG lists missing files", env: missingFile + string(os.PathListSeparator) + other,
			want: []string{`"` + missingFile + `", "` + other + `"`, "none of them exists"}},
		{name: "KUBECONFIG names an empty file", env: empty,
			want: []string{`"` + empty + `" names no cluster`}},
		{name: "the setting names a missing file", kubeconfig: missingFile, env: empty,
			want: []string{`the provider's kubernetes kubeconfig, "` + missingFile + `"`, "it does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			t.Setenv("KUBECONFIG", tt.env)
			// Not in a pod: client-go would take the in-cluster config.
			t.Setenv("KUBERNETES_SERVICE_HOST", "")
			t.Setenv("KUBERNETES_SERVICE_PORT", "")
			_, err := New(t.Context(), Options{Kubeconfig: tt.kubeconfig, BaseImage: "a2a:test", StateDir: dir})
			if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) {
				t.Fatalf("New = %v, want an invalid config error", err)
			}
			msg := err.Error()
			for _, w := range append(tt.want, "kubernetes { kubeconfig = ", "KUBECONFIG variable") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "KUBERNETES_MASTER") {
				t.Errorf("error %q points at KUBERNETES_MASTER", msg)
			}
		})
	}
}

// TestNoKubeconfigUnsetEnv: with KUBECONFIG unset the file looked for is
// ~/.kube/config, which client-go fixes when it loads, so the message is
// checked alone.
func TestNoKubeconfigUnsetEnv(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".kube", "config")
	msg := noKubeconfig("", false, []string{home})
	for _, w := range []string{`~/.kube/config ("` + home + `"), as KUBECONFIG is unset`, "it does not exist", "kubernetes { kubeconfig = "} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not say %q", msg, w)
		}
	}
}
