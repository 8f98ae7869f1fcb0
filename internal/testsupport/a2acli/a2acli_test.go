package a2acli

import (
	"os/exec"
	"strings"
	"testing"
)

func TestBinaryServes(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), Binary(t), "serve", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("a2a serve --help: %v\n%s", err, out)
	}
	for _, flag := range []string{"--echo", "--exec", "--protocol", "--card-compat", "--port", "--host"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("a2a serve --help does not mention %s:\n%s", flag, out)
		}
	}
}
