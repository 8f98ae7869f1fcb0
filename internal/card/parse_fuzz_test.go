package card

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse. Whatever the input, Parse must
// not panic, must either return a card or a *ValidationError naming where
// each problem is, and a 1.0 card it accepts must survive MarshalCard and
// parse again, so what the data source re-publishes stays valid.
func FuzzParse(f *testing.F) {
	samples, err := filepath.Glob(filepath.Join("testdata", "cards", "*", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range samples {
		raw, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) || len(verr.Problems) == 0 {
				t.Fatalf("Parse error %v is not a *ValidationError with problems", err)
			}
			for _, pr := range verr.Problems {
				if !strings.HasPrefix(pr.Path, "$") || pr.Message == "" {
					t.Fatalf("problem %+v lacks a path or message", pr)
				}
			}
			return
		}
		if p.Card == nil || !bytes.Equal(p.Raw, raw) {
			t.Fatalf("Parse returned no card or altered Raw")
		}
		if _, err := canonicalPayload(raw); err != nil {
			t.Fatalf("accepted card has no signing payload: %v", err)
		}
		switch p.SpecVersion {
		case SpecVersion03:
			return
		case SpecVersion10:
		default:
			t.Fatalf("SpecVersion = %q", p.SpecVersion)
		}
		again, err := MarshalCard(p.Card, Strict10)
		if err != nil {
			t.Fatalf("MarshalCard of an accepted card: %v", err)
		}
		if _, err := Parse(again); err != nil {
			t.Fatalf("accepted card does not parse after MarshalCard: %v\ninput: %s\nre-encoded: %s", err, raw, again)
		}
	})
}
