package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// testAccProtoV6ProviderFactories serve the provider in-process to the real
// terraform binary during acceptance tests.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"a2a": providerserver.NewProtocol6WithError(New(hostbuild.Release)()),
}

// TestMain lets the test binary stand in for the provider binary, and runs
// agents with the agent host the tests build (hostbuild), of the release
// the provider is given: the local adapter starts it, and the container
// adapter builds its base image from it.
func TestMain(m *testing.M) {
	servePluginIfLaunched()
	hostExecutable = hostbuild.Path
	code := m.Run()
	removeBuiltImages()
	hostbuild.Remove()
	os.Exit(code)
}

// localOptions are those of a local runtime over dir, as the provider's
// own: starting the agent host the tests build, of its release.
func localOptions(t testing.TB, dir *statedir.Dir) local.Options {
	t.Helper()
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	return local.Options{StateDir: dir, Executable: host, Version: hostbuild.Release}
}
