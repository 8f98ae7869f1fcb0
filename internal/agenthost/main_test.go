package agenthost

import (
	"os"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// hostArg turns the test binary into the agent host, of release
// testRelease, with the arguments after it: the tests run the host as the
// process it is (signals, exit statuses, logs) without building it.
const (
	hostArg     = "as-agent-host"
	testRelease = "test"
)

// TestMain lets the test binary stand in for the host executable (or the
// benchmark baseline's): run with hostArg, it becomes that program instead
// of running tests. The tests' PostgreSQL server, if they started one, goes
// once they have run.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == hostArg {
		os.Exit(Main(testRelease, os.Args[2:]))
	}
	runBaselineIfRequested()
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}
