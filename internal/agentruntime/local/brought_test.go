package local

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// broughtConfig is the contract suite's brought agent on this adapter: the
// SDK's a2a tool, serving card from a file (unless nil), on the port the
// runtime gives.
func broughtConfig(t *testing.T, name string, serveArgs []string, card []byte) []byte {
	t.Helper()
	command := append(append([]string{a2acli.Binary(t), "serve"}, serveArgs...), "--host", "${HOST}", "--port", "${PORT}")
	if card != nil {
		cardFile := filepath.Join(t.TempDir(), "card.json")
		if err := os.WriteFile(cardFile, card, 0o644); err != nil {
			t.Fatal(err)
		}
		command = append(command, "--card", cardFile)
	}
	return agentConfig(name, fmt.Sprintf("[runtime]\ncommand = %s\n", a2acli.TOMLArray(command...)))
}
