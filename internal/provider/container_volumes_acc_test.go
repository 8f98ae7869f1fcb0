package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccContainerAgent_removedWithoutVolumes removes an agent's container
// with `docker rm -f`, which leaves its volume and the write-only values in
// it: the apply that heals the agent removes that volume, and so does the
// destroy that follows a second such removal, so that no volume of the
// agent is left.
func TestAccContainerAgent_removedWithoutVolumes(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Volumes")
	const greeting, token = "wo-volume-greeting-61c0", "wo-volume-token-d93e"
	setWriteOnlyValues(t, greeting, token)
	config := c.writeOnlyAgent(name, woDescription, 1)
	var volumes []string
	t.Cleanup(func() {
		// What a failed run left: the volumes that outlived their containers.
		for _, v := range volumes {
			_, _ = docker("volume", "rm", v)
		}
	})
	removeKeepingVolume := func() {
		volume, err := writeOnlyVolume(id)
		if err != nil {
			t.Fatal(err)
		}
		volumes = append(volumes, volume)
		c.mustDocker("rm", "-f", containerName(id))
	}
	serves := checkCard(descriptionIs(greeting + " / " + token))

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			left, err := docker("volume", "ls", "-q", "--filter", "label="+managedByLabel, "--filter", "label="+agentIDLabel+"="+id)
			if err != nil {
				return err
			}
			if strings.TrimSpace(left) != "" {
				return fmt.Errorf("destroy left volumes %s of agent %s", strings.Fields(left), id)
			}
			if err := volumesGone(&volumes)(s); err != nil {
				return err
			}
			return c.checkNoContainers(s)
		},
		Steps: []resource.TestStep{
			{Config: config, Check: serves},
			{
				PreConfig: removeKeepingVolume,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(serves, volumesGone(&volumes)),
			},
			{
				// CheckDestroy reads what is left.
				PreConfig: removeKeepingVolume,
				Config:    config,
				Destroy:   true,
			},
		},
	})
}

// writeOnlyVolume names the volume of the agent's container that holds its
// write-only values.
func writeOnlyVolume(id string) (string, error) {
	out, err := docker("inspect", "--type", "container", "--format",
		`{{range .Mounts}}{{if eq .Destination "/run/a2a"}}{{.Name}}{{end}}{{end}}`, containerName(id))
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("container %s has no volume at /run/a2a", containerName(id))
	}
	return strings.TrimSpace(out), nil
}

// volumesGone passes when none of the volumes is left on the engine.
func volumesGone(volumes *[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, v := range *volumes {
			_, err := docker("volume", "inspect", v)
			switch {
			case err == nil:
				return fmt.Errorf("volume %s of a container removed without its volumes is still on the engine, write-only values in it", v)
			case !strings.Contains(strings.ToLower(err.Error()), "no such volume"):
				return err
			}
		}
		return nil
	}
}
