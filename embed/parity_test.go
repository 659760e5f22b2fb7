package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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

// TestParity compares the Go embedder with the independent Python pipeline:
// cosine >= 0.9999 for every recorded text, texts embedded all in one call.
func TestParity(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parity", "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no parity data in testdata/parity (make_parity.py writes it)")
	}
	byID := map[string]string{}
	for _, f := range files {
		byID[filepath.Base(f[:len(f)-len(".json")])] = f
	}
	for _, m := range manifest(t) {
		t.Run(m.ID, func(t *testing.T) {
			path, ok := byID[m.ID]
			if !ok {
				t.Fatalf("no parity file for manifest model %s", m.ID)
			}
			data, err := os.ReadFile(path)
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
				if cos := Dot(want, got[i]); cos < 0.9999 {
					t.Errorf("%s: case %s: cosine with the Python reference %.6f, want >= 0.9999", path, c.Name, cos)
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
