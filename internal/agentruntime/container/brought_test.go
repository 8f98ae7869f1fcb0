package container

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// broughtConfig is the contract suite's brought agent on this adapter: an
// image holding the SDK's static a2a tool and the card (served unless nil),
// built through the engine's API (so that it works against Podman as well)
// and removed when the test ends.
func broughtConfig(t *testing.T, name string, serveArgs []string, card []byte) []byte {
	t.Helper()
	tool, err := os.ReadFile(a2acli.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append([]byte(name), card...))
	ref := "a2a-contract-brought:" + hex.EncodeToString(sum[:6])
	buildImage(t, ref, map[string][]byte{
		"Dockerfile": []byte("FROM scratch\nCOPY a2a /a2a\nCOPY card.json /card.json\n"),
		"a2a":        tool,
		"card.json":  card,
	})
	command := append(append([]string{"/a2a", "serve"}, serveArgs...), "--host", "${HOST}", "--port", "${PORT}")
	if card != nil {
		command = append(command, "--card", "/card.json")
	}
	return agentConfig(name, fmt.Sprintf("[runtime]\nimage = %q\npull = \"never\"\ncommand = %s", ref, a2acli.TOMLArray(command...)))
}

// buildImage builds ref from the files of its build context.
func buildImage(t *testing.T, ref string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cli.Close() }()
	res, err := cli.ImageBuild(testContext(t), &buf, client.ImageBuildOptions{Tags: []string{ref}, Remove: true, ForceRemove: true})
	if err != nil {
		t.Fatalf("build image %s: %v", ref, err)
	}
	defer func() { _ = res.Body.Close() }()
	if err := readBuildOutput(res.Body); err != nil {
		t.Fatalf("build image %s: %v", ref, err)
	}
	t.Cleanup(func() { removeImage(t, ref) })
}
