// Command a2a-tool-path prints the path of the A2A SDK's a2a tool, built as
// the tests build it, for `make test-kube`, which packs it into the image
// the kubernetes tests run brought agents from, and for `make a2a-tool`,
// which copies it for operators.
package main

import (
	"fmt"
	"os"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

func main() {
	path, err := a2acli.Path()
	if err != nil {
		fmt.Fprintln(os.Stderr, "build the A2A SDK's a2a tool:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
