// Package kubecluster runs commands of the project's test cluster script,
// scripts/kube-cluster.sh, which make test-kube names in ScriptEnv: a
// node's kubelet stopped or started, kubectl as the cluster's admin.
package kubecluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// ScriptEnv names the environment variable that holds the script's path.
const ScriptEnv = "A2A_KUBE_CLUSTER_SCRIPT"

// ErrNoScript is Run's error where ScriptEnv is not set.
var ErrNoScript = errors.New(ScriptEnv + " does not name scripts/kube-cluster.sh, which stops and starts nodes: run make test-kube")

// Run runs the script with args and returns what it printed.
func Run(ctx context.Context, args ...string) (string, error) {
	script := os.Getenv(ScriptEnv)
	if script == "" {
		return "", ErrNoScript
	}
	out, err := exec.CommandContext(ctx, script, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %v: %w\n%s", script, args, err, out)
	}
	return string(out), nil
}
