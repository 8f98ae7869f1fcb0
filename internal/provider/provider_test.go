package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agenthost"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/staticself"
)

// testAccProtoV6ProviderFactories serve the provider in-process to the real
// terraform binary during acceptance tests.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"a2a": providerserver.NewProtocol6WithError(New("test")()),
}

// TestMain lets the test binary stand in for the provider binary: the local
// adapter executes its own executable with the agent host subcommand, and
// the container adapter builds its base image from it. An empty image
// starts only a static binary, so when cgo linked this one dynamically both
// use a static build of it instead.
func TestMain(m *testing.M) {
	agenthost.RunIfSubcommand()
	servePluginIfLaunched()
	ownExecutable = staticself.Path
	code := m.Run()
	removeBuiltImages()
	staticself.Remove()
	os.Exit(code)
}
