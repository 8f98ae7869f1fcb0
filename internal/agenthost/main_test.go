package agenthost

import (
	"os"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// TestMain lets the test binary stand in for the provider binary: run with
// the host's subcommand (or the benchmark baseline's), it becomes that
// program instead of running tests. The tests' PostgreSQL server, if they
// started one, goes once they have run.
func TestMain(m *testing.M) {
	RunIfSubcommand()
	runBaselineIfRequested()
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}
