//go:build linux

package local

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestStopCutShortByTimeout stops an agent that ignores SIGTERM with less
// time than the grace period: the caller's deadline wins, the agent is
// killed and recorded stopped, and the error names the timeout as the
// cause rather than a lock the expired context could not take.
func TestStopCutShortByTimeout(t *testing.T) {
	t.Setenv(roleEnv, roleStubborn)
	const grace = time.Minute
	tests := []struct {
		name string
		stop func(rt *Runtime, ctx context.Context, id string) error
	}{
		{"stop", (*Runtime).Stop},
		{"deprovision", (*Runtime).Deprovision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			// The test binary is the host, unchecked: asked its release, it
			// would be stubborn too.
			rt, err := New(Options{StateDir: statedirtest.Open(t, t.TempDir()), Executable: self, StopGracePeriod: grace})
			if err != nil {
				t.Fatal(err)
			}
			// The role reaches the agent as an allowlisted variable its
			// config references.
			allow := &agentruntime.EnvAllowlist{Name: "test", Variables: []string{roleEnv}}
			spec := agentruntime.Spec{Config: agentConfig("Stubborn", "# role: ${"+roleEnv+"}\n"), Allowlist: allow}
			a := provisionOnly(t, rt, spec)
			if err := rt.Start(bg, a.ID); err != nil {
				t.Fatal(err)
			}
			a, err = rt.Get(bg, a.ID)
			if err != nil || !a.Running {
				t.Fatalf("Get after start = %+v, %v; want running", a, err)
			}
			pid := pidOf(t, a)
			start, err := startTimeOf(pid)
			if err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
			defer cancel()
			err = tt.stop(rt, ctx, a.ID)
			if err == nil {
				t.Fatal("stopping with less time than the grace period succeeded, want an error naming the timeout")
			}
			for _, want := range []string{"the operation's timeout", "stop grace period (" + grace.String() + ")", "killed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "state dir lock") {
				t.Errorf("error %q blames a lock, not the timeout", err)
			}
			if alive(pid, start) {
				t.Errorf("the agent (pid %d) survived its stop", pid)
			}
			wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
		})
	}
}
