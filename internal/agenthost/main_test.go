package agenthost

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the provider binary: run with
// the host's subcommand (or the benchmark baseline's), it becomes that
// program instead of running tests.
func TestMain(m *testing.M) {
	RunIfSubcommand()
	runBaselineIfRequested()
	os.Exit(m.Run())
}
