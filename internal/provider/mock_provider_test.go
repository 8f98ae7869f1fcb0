package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// mockedModule wires a data source's url to an agent's card_url, which a
// mock_provider fills with an arbitrary string.
const mockedModule = `terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a" }
  }
}

resource "a2a_agent" "echo" {
  config = "[agent]\nname = \"Echo\"\n"
}

data "a2a_agent_card" "echo" {
  url = a2a_agent.echo.card_url
}
`

const mockedTest = `mock_provider "a2a" {}

run "apply_mocked" {
  command = apply
}
`

// TestAccMockProvider runs `terraform test` with mock_provider "a2a" on a
// module whose data source reads a mocked agent's card_url: the provider's
// own validation must not refuse the values a mock makes up.
func TestAccMockProvider(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skip("builds the provider and runs terraform test; set TF_ACC=1")
	}
	requireTerraform(t)
	bin := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(bin, "terraform-provider-a2a"), "github.com/a2a-terraform/terraform-provider-a2a")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(t.TempDir(), "terraformrc")
	writeFile(t, cliConfig, "provider_installation {\n  dev_overrides {\n    \"a2a-terraform/a2a\" = \""+bin+"\"\n  }\n  direct {}\n}\n")
	module := t.TempDir()
	writeFile(t, filepath.Join(module, "main.tf"), mockedModule)
	writeFile(t, filepath.Join(module, "tests", "mocked.tftest.hcl"), mockedTest)

	cmd := exec.CommandContext(t.Context(), "terraform", "test", "-no-color")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "A2A_STATE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1 passed, 0 failed") {
		t.Fatalf("terraform test with mock_provider \"a2a\": %v\n%s", err, out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
