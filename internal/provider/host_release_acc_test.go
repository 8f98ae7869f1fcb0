package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// TestAccAgent_hostOfAnotherRelease: apply refuses to start an agent with
// an agent host that is missing or of another release than the provider's,
// saying which host and which to use, and leaves nothing running or
// recorded. The provider here is of release 1.2.0; the tests' host is not.
func TestAccAgent_hostOfAnotherRelease(t *testing.T) {
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "a2a-agent-host")
	release120 := map[string]func() (tfprotov6.ProviderServer, error){
		"a2a": providerserver.NewProtocol6WithError(New("1.2.0")()),
	}
	tests := []struct {
		name, executable, want string
	}{
		{"missing", missing, `(?s)` + missing + `\s+cannot\s+be\s+run.*no\s+such\s+file.*a2a-agent-host\s+of\s+release\s+"1\.2\.0".*executable\s+in\s+the\s+local\s+block`},
		{"of another release", host, `(?s)is\s+of\s+release\s+"test"\s+and\s+this\s+provider\s+of\s+release\s+"1\.2\.0".*never\s+mixed.*` +
			`a2a-agent-host\s+of\s+release\s+"1\.2\.0",\s+which\s+that\s+release's\s+archive\s+holds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccTest(t)
			acc.adapterBlock = fmt.Sprintf("  local {\n    executable = %q\n  }\n", tt.executable)
			config := acc.agent(echoConfig("Host "+tt.name, "never starts"), "  timeouts {\n    create = \"30s\"\n  }")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: release120,
				CheckDestroy:             acc.checkNothingLeft,
				Steps:                    failedCreateSteps(t, config, tt.want, acc.checkNothingLeft),
			})
		})
	}
}
