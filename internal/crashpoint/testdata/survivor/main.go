// Command survivor reaches a crash point, as the provider does, and says
// it went on: built without the crashpoint tag, as the provider is
// released, it must never crash.
package main

import (
	"fmt"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

func main() {
	crashpoint.Hit("release-point")
	fmt.Println("survived")
}
