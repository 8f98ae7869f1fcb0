package memory

import (
	"fmt"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
)

func TestContract(t *testing.T) {
	contracttest.Run(t, contracttest.Harness{
		New:           func(*testing.T) agentruntime.Runtime { return New() },
		Config:        func(name string) []byte { return fmt.Appendf(nil, "[agent]\nname = %q\n", name) },
		NoAgentOutput: true,
	})
}
