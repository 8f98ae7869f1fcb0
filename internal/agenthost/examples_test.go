package agenthost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// examplesDir holds the configurations users copy first.
var examplesDir = filepath.Join("..", "..", "examples")

// TestExampleCards serves the card of every built-in agent config the
// examples hold, in a file of its own or written inline in an a2a_agent,
// and holds it to the A2A schemas (startInProcess does), so that no example
// publishes a card a strict 1.0 reader refuses.
func TestExampleCards(t *testing.T) {
	configs := exampleConfigs(t)
	if len(configs) < 4 {
		t.Fatalf("found %d agent configs under %s; the examples hold more, so the search is broken", len(configs), examplesDir)
	}
	for where, raw := range configs {
		cfg, err := agentconfig.Parse([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if cfg.Runtime.Brought() {
			continue // an agent brought to run serves its own card
		}
		t.Run(where, func(t *testing.T) {
			// Every reference gets its default, or a stand-in value.
			unset := cfg.Unresolved(func(string) (string, bool) { return "", false })
			if err := cfg.Expand(func(name string) (string, bool) {
				for _, u := range unset {
					if u == name {
						return "example-" + strings.ToLower(name), true
					}
				}
				return "", false
			}); err != nil {
				t.Fatal(err)
			}
			cfg.Server.HTTPPort = 0 // any free port: the card's content is what counts
			startInProcess(t, cfg, Options{})
		})
	}
}

// exampleConfigs returns every agent config under the examples, by where it
// is written: each .toml file, and each a2a_agent's config written inline
// in a .tf file. A config read with file() is one of the .toml files; one
// made any other way cannot be read here, and fails the test.
func exampleConfigs(t *testing.T) map[string]string {
	t.Helper()
	configs := map[string]string{}
	err := filepath.WalkDir(examplesDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(examplesDir, path)
		switch filepath.Ext(path) {
		case ".toml":
			configs[rel] = string(src)
		case ".tf":
			inlineConfigs(t, rel, src, configs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return configs
}

func inlineConfigs(t *testing.T, rel string, src []byte, configs map[string]string) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig(src, rel, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", rel, diags.Error())
	}
	for _, block := range file.Body.(*hclsyntax.Body).Blocks {
		if block.Type != "resource" || len(block.Labels) == 0 || block.Labels[0] != "a2a_agent" {
			continue
		}
		attr, ok := block.Body.Attributes["config"]
		if !ok {
			continue
		}
		where := rel + ":" + block.Labels[1]
		if call, ok := attr.Expr.(*hclsyntax.FunctionCallExpr); ok && call.Name == "file" {
			continue
		}
		tmpl, ok := attr.Expr.(*hclsyntax.TemplateExpr)
		if !ok {
			t.Fatalf("%s: the config is neither written inline nor read with file(), so this test cannot read it", where)
		}
		configs[where] = templateText(tmpl)
	}
}

// templateText is a template's text with each interpolation, which only
// terraform can evaluate, replaced by a stand-in value.
func templateText(tmpl *hclsyntax.TemplateExpr) string {
	var b strings.Builder
	for _, part := range tmpl.Parts {
		if lit, ok := part.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String {
			b.WriteString(lit.Val.AsString())
			continue
		}
		b.WriteString("interpolated")
	}
	return b.String()
}
