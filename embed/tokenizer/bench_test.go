package tokenizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// BenchmarkEncode measures tokenizing the parity texts (code, prose,
// accents, CJK, a 2,000-token text) with a real tokenizer.
func BenchmarkEncode(b *testing.B) {
	m, err := models.Lookup("e5-small-q")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "parity", m.ID+".json"))
	if err != nil {
		b.Fatal(err)
	}
	var pf parityFile
	if err := json.Unmarshal(data, &pf); err != nil {
		b.Fatal(err)
	}
	tok := modelTokenizer(b, m)
	var n int64
	for _, c := range pf.Cases {
		n += int64(len(c.Text))
	}
	b.SetBytes(n)
	tokens := 0
	for b.Loop() {
		tokens = 0
		for _, c := range pf.Cases {
			tokens += len(tok.Encode(c.Text, 0).IDs)
		}
	}
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
