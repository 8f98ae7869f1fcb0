package provider

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// sdkImage builds an image holding the SDK's static a2a tool at /a2a and
// the given files at their paths, and removes it when the test ends. With
// no shell among the files it serves echo agents only.
func (c *containerAccTest) sdkImage(files map[string][]byte) string {
	c.t.Helper()
	dir := c.t.TempDir()
	bin, err := os.ReadFile(a2acli.Binary(c.t))
	if err != nil {
		c.t.Fatal(err)
	}
	buildFiles := map[string][]byte{"a2a": bin, "Dockerfile": []byte("FROM scratch\nCOPY . /\n")}
	maps.Copy(buildFiles, files)
	for name, data := range buildFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			c.t.Fatal(err)
		}
	}
	tag := "a2a-sdk-tool-test:" + c.suffix
	if _, err := docker("build", "-q", "-t", tag, dir); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() {
		if _, err := docker("rmi", "-f", tag); err != nil {
			c.t.Logf("remove test image: %v", err)
		}
	})
	return tag
}

// busybox reads the static busybox binary, the shell and tools of the
// --exec agent's image.
func busybox(t *testing.T) []byte {
	t.Helper()
	path, err := exec.LookPath("busybox")
	if err != nil {
		missing(t, requireEngine, "the --exec agent's image needs a static busybox (Debian: busybox-static), which is not on PATH: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAccBroughtAgent_container runs the SDK's a2a tool from an image built
// from its static binary, in each shape it serves over HTTP.
func TestAccBroughtAgent_container(t *testing.T) {
	c := newContainerAccTest(t)
	type agent struct {
		sdkCase
		name, id string
		port     int
	}
	var agents []agent
	cards := map[string][]byte{}
	for _, sc := range sdkCases {
		name, id := c.agentName("Ctr " + sc.name)
		a := agent{sdkCase: sc, name: name, id: id, port: a2acli.FreePort(t)}
		cards["cards/"+id+".json"] = a2acli.Card(name, fmt.Sprintf("http://127.0.0.1:%d", a.port), sc.binding, sc.protocol)
		agents = append(agents, a)
	}
	image := c.sdkImage(cards)
	for _, a := range agents {
		t.Run(a.sdkCase.name, func(t *testing.T) {
			command := append(append([]string{"/a2a", "serve"}, a.serve...), "--host", "${HOST}", "--port", "${PORT}", "--card", "/cards/"+a.id+".json")
			config := withCardData(c.agent(fmt.Sprintf("[agent]\nname = %q\n[server]\nhttp_port = %d\n[runtime]\nimage = %q\npull = \"never\"\ncommand = %s\n",
				a.name, a.port, image, tomlArray(command...))))
			crash := func() { c.mustDocker("rm", "-f", containerName(a.id)) }
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             c.checkNoContainers,
				Steps:                    broughtSteps(config, a.id, a.sdkCase, a.name, crash, checkServedByContainer(a.id)),
			})
		})
	}
}

// TestAccBroughtAgent_containerExec turns a shell script into an agent with the
// tool's --exec, in an image that has a shell: busybox as /bin/sh and as
// the tr the script runs.
func TestAccBroughtAgent_containerExec(t *testing.T) {
	c := newContainerAccTest(t)
	sc := sdkCase{"SDK Exec", a2acli.JSONRPC, "1.0", nil, "shout this", "SHOUT THIS"}
	name, id := c.agentName("Ctr SDK Exec")
	port := a2acli.FreePort(t)
	shell := busybox(t)
	image := c.sdkImage(map[string][]byte{
		"bin/sh":    shell,
		"bin/tr":    shell,
		"shout.sh":  []byte("#!/bin/sh\ntr a-z A-Z\n"),
		"card.json": a2acli.Card(name, fmt.Sprintf("http://127.0.0.1:%d", port), sc.binding, sc.protocol),
	})
	command := []string{"/a2a", "serve", "--exec", "/shout.sh", "--transport", "jsonrpc", "--host", "${HOST}", "--port", "${PORT}", "--card", "/card.json"}
	config := withCardData(c.agent(fmt.Sprintf("[agent]\nname = %q\n[server]\nhttp_port = %d\n[runtime]\nimage = %q\npull = \"never\"\ncommand = %s\n",
		name, port, image, tomlArray(command...))))
	crash := func() { c.mustDocker("rm", "-f", containerName(id)) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps:                    broughtSteps(config, id, sc, name, crash, checkServedByContainer(id)),
	})
}

// TestAccBroughtAgent_containerMissingImage checks an image absent from the
// engine, with pull = "never", fails apply and leaves no container.
func TestAccBroughtAgent_containerMissingImage(t *testing.T) {
	c := newContainerAccTest(t)
	name, _ := c.agentName("Ctr Missing Image")
	image := "terraform-provider-a2a-test-absent:" + c.suffix
	config := c.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\nimage = %q\npull = \"never\"\n", name, image))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps:                    failedCreateSteps(t, config, `(?s)`+regexp.QuoteMeta(image)+`.*is\s+not\s+on\s+the\s+container\s+engine`, c.checkNothingKept),
	})
}

// TestAccContainerAgent_missingBaseImage: a base_image the engine lacks,
// such as a mistyped one, fails the plan blaming the provider block's
// base_image, never the agent's config, and says it is never pulled.
func TestAccContainerAgent_missingBaseImage(t *testing.T) {
	c := newContainerAccTest(t)
	name, _ := c.agentName("Ctr Missing Base")
	image := "terraform-provider-a2a:typo-" + c.suffix
	c.adapterBlock = fmt.Sprintf("  container {\n    base_image = %q\n  }\n", image)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: []resource.TestStep{{
			Config:   c.agent(fmt.Sprintf("[agent]\nname = %q\n", name)),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)The provider block's container.base_image cannot be used.*` + regexp.QuoteMeta(image) +
				`.*is\s+not\s+on\s+the\s+container\s+engine.*provider\s+"a2a"\s+\{\s+container\s+\{\s+base_image.*never\s+pulls.*docker\s+build\s+-t`),
		}},
	})
}
