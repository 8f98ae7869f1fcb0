package card

import (
	"encoding/json"
	"testing"
)

// BenchmarkDerive measures deriving and encoding the published card, against
// the SDK's plain encoding of the same card as the baseline.
func BenchmarkDerive(b *testing.B) {
	cfg := mustConfig(b, fullConfig)
	card, err := Derive(cfg, "http://127.0.0.1:8731")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline-sdk-json-marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(card); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("derive", func(b *testing.B) {
		for b.Loop() {
			if _, err := Derive(cfg, "http://127.0.0.1:8731"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("derive-and-marshal", func(b *testing.B) {
		for b.Loop() {
			c, err := Derive(cfg, "http://127.0.0.1:8731")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := MarshalCard(c, Strict10); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkParse measures strict parsing against a plain, unchecked decode
// of the same bytes into a generic value as the baseline.
func BenchmarkParse(b *testing.B) {
	for _, file := range []string{"valid/glossary-translator-1.0.json", "valid/harbour-weather-0.3.json"} {
		raw := readSample(b, file)
		b.Run(file+"/baseline-json-unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(file+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Parse(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
