package provider

import (
	"fmt"
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
	path, err := newerTerraformPath()
	if err != nil {
		missing(t, "A2A_REQUIRE_TOOLS", "%v", err)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", path)
	return path
}

// newerTerraformIfAny is the path of that CLI, for a test that checks
// something more with it: without it the test says what it leaves
// unchecked, or fails under A2A_REQUIRE_TOOLS=1.
func newerTerraformIfAny(t *testing.T) (string, bool) {
	t.Helper()
	path, err := newerTerraformPath()
	switch {
	case err == nil:
		return path, true
	case os.Getenv("A2A_REQUIRE_TOOLS") == "1":
		t.Fatalf("A2A_REQUIRE_TOOLS=1 but %v", err)
	default:
		t.Logf("leaves out what only a newer Terraform CLI can check: %v (set A2A_REQUIRE_TOOLS=1 to fail instead)", err)
	}
	return "", false
}

func newerTerraformPath() (string, error) {
	path := os.Getenv(terraformCLIEnv)
	if path == "" {
		return "", fmt.Errorf("this test needs Terraform 1.14 or newer, named by %s: make test builds it with "+
			"scripts/terraform-cli.sh (%s=$(scripts/terraform-cli.sh) go test ...)", terraformCLIEnv, terraformCLIEnv)
	}
	if !isExecutable(path) {
		return "", fmt.Errorf("%s=%s names no executable Terraform CLI: run scripts/terraform-cli.sh, which prints its path", terraformCLIEnv, path)
	}
	return path, nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// identityTerraform is the version check of tests of resource identity
// and terraform query, which fail rather than skip on an older CLI.
var identityTerraform = []tfversion.TerraformVersionCheck{tfversion.RequireAbove(tfversion.Version1_14_0)}
