package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/stretchr/testify/require"
)

// parityFile is the format make_parity.py writes: per fixed text, the ids of
// the Hugging Face tokenizers library and the embedding of Python
// onnxruntime (one text per run, pooled per the manifest, L2-normalised).
type parityFile struct {
	Model       string `json:"model"`
	ModelSHA256 string `json:"model_sha256"`
	Cases       []struct {
		Name      string    `json:"name"`
		Text      string    `json:"text"`
		IDs       []int64   `json:"ids"`
		Truncated bool      `json:"truncated"`
		Embedding []float32 `json:"embedding"`
	} `json:"cases"`
}

// SameClassCos is the parity bound against a reference made on the running
// CPU class; CrossClassCos the bound against one made on another class (no
// reference of this class in testdata/parity/<class>/): the worst case
// measured between amd64-avx512-vnni and amd64-avx2 is 0.9894
// (mpnet-base-q; docs/portability.md), a wrong pooling or tokenization is
// far below both.
const (
	SameClassCos  = 0.9999
	CrossClassCos = 0.98
)

// TestParity compares the Go embedder with the independent Python pipeline:
// cosine >= 0.9999 for every recorded text, texts embedded all in one call,
// against the reference of this CPU class (cpuclass.File: quantized models
// differ between classes).
func TestParity(t *testing.T) {
	dir := filepath.Join("testdata", "parity")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no parity data in testdata/parity (make_parity.py writes it)")
	}
	for _, m := range manifest(t) {
		t.Run(m.ID, func(t *testing.T) {
			path, madeOn := cpuclass.File(dir, m.ID+".json")
			minCos := float32(SameClassCos)
			if madeOn != cpuclass.Current() {
				minCos = CrossClassCos
				t.Logf("no reference of CPU class %s: checked against %s's at cosine >= %.2f; make one on this machine with: "+
					"python3 embed/testdata/parity/make_parity.py -out embed/testdata/parity/%s %s",
					cpuclass.Current(), madeOn, minCos, cpuclass.Current(), m.ID)
			}
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				t.Fatalf("no parity file for manifest model %s", m.ID)
			}
			require.NoError(t, err)
			var pf parityFile
			require.NoError(t, json.Unmarshal(data, &pf), path)
			mf, _ := m.File("model.onnx")
			require.Equal(t, mf.SHA256, pf.ModelSHA256, "%s was made from another model file", path)
			require.NotEmpty(t, pf.Cases, path)

			e := newEmbedder(t, m)
			texts := make([]string, len(pf.Cases))
			for i, c := range pf.Cases {
				texts[i] = c.Text
			}
			got, err := e.Embed(t.Context(), texts, "")
			require.NoError(t, err)
			truncated := 0
			for i, c := range pf.Cases {
				require.Len(t, c.Embedding, m.Dimension, "%s: case %s", path, c.Name)
				want := append([]float32(nil), c.Embedding...)
				normalize(want) // the file rounds to 6 decimals
				if cos := Dot(want, got[i]); cos < minCos {
					t.Errorf("%s: case %s: cosine with the Python reference (CPU class %s) %.6f, want >= %.4f on CPU class %s", path, c.Name, madeOn, cos, minCos, cpuclass.Current())
				}
				if c.Truncated {
					truncated++
				}
			}
			if s := e.Stats(); s.Truncated != truncated {
				t.Errorf("%d texts truncated, the reference truncated %d", s.Truncated, truncated)
			}
		})
	}
}
