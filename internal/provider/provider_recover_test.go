package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccProvider_recoversAgents proves every terraform command adopts the
// agents earlier commands started, and logs what it adopted.
func TestAccProvider_recoversAgents(t *testing.T) {
	acc := newAccTest(t)
	logPath := filepath.Join(t.TempDir(), "provider.log")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	config := acc.agent(echoConfig("Acc Recover", "adopted"))

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{Config: config, Check: acc.recordPID()},
			{Config: config, PlanOnly: true},
		},
	})
	logged, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	adopted := regexp.MustCompile(`runtime ready:.*adopted=\["acc-recover"\].*recovery=adopted`)
	if !adopted.Match(logged) {
		t.Errorf("no provider log line in %s reports adopting acc-recover; want one matching %s", logPath, adopted)
	}
}
