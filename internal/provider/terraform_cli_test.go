package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// terraformCLIEnv names the Terraform CLI of resource identity, terraform
// query and actions, newer than the terraform on PATH, which make test
// builds with scripts/terraform-cli.sh.
const terraformCLIEnv = "A2A_TERRAFORM_CLI"

// newerTerraform makes the test's terraform runs use that CLI, through
// TF_ACC_TERRAFORM_PATH, and returns its path. Without it the test skips,
// or fails under A2A_REQUIRE_TOOLS=1, as CI sets it. The other tests keep
// running on the terraform on PATH, which lacks these features.
func newerTerraform(t *testing.T) string {
	t.Helper()
	path := os.Getenv(terraformCLIEnv)
	if path == "" {
		missing(t, "A2A_REQUIRE_TOOLS", "this test needs Terraform 1.14 or newer, named by %s: "+
			"make test builds it with scripts/terraform-cli.sh (%s=$(scripts/terraform-cli.sh) go test ...)", terraformCLIEnv, terraformCLIEnv)
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		t.Fatalf("%s=%s names no executable Terraform CLI (%v): run scripts/terraform-cli.sh, which prints its path", terraformCLIEnv, path, err)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", path)
	return path
}

// identityTerraform is the version check of tests of resource identity
// and terraform query, which fail rather than skip on an older CLI.
var identityTerraform = []tfversion.TerraformVersionCheck{tfversion.RequireAbove(tfversion.Version1_14_0)}
