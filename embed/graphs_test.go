package embed

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// graphsDir holds the small randomly initialised graphs that
// testdata/graphs/build.py builds with the onnx package, and their
// reference vectors from Python ONNX Runtime. They check plumbing, not
// quality, and never run as a benchmark system.
const graphsDir = "testdata/graphs"

type graphRef struct {
	ONNXRuntime string   `json:"onnxruntime"`
	Texts       []string `json:"texts"`
	Models      []struct {
		Name        string      `json:"name"`
		Pooling     string      `json:"pooling"`
		Hidden      int         `json:"hidden"`
		Dimension   int         `json:"dimension"`
		MaxTokens   int         `json:"max_tokens"`
		Normalize   *bool       `json:"normalize"`
		PaddingSide string      `json:"padding_side"`
		Output      string      `json:"output"`
		Inputs      []string    `json:"inputs"`
		IDs         [][]int64   `json:"ids"`
		Vectors     [][]float32 `json:"vectors"`
	} `json:"models"`
}

// graphTolerance is the largest difference allowed per component between
// the Go pipeline (batched, padded) and Python's (one unpadded text at a
// time): float32 rounding of the pooling sums, and kernels of another ONNX
// Runtime version. The int8 graph quantizes activations per run, with
// rounding that may land one step apart between versions.
var graphTolerance = map[string]float64{"enc-mean-int8": 2e-3}

// TestGraphParity embeds the reference texts with every small graph —
// cls, mean and last-token pooling; right and left padding; with and
// without token_type_ids and position_ids; last_hidden_state,
// token_embeddings and a ready sentence_embedding; Matryoshka truncation;
// normalisation on and off; float32, float16 and int8 weights — in batches
// of 3 sorted by length (so most texts are padded), and compares each
// vector with Python ONNX Runtime's for the text alone.
func TestGraphParity(t *testing.T) {
	cache := mustHaveRuntime(t)
	data, err := os.ReadFile(filepath.Join(graphsDir, "reference.json"))
	require.NoError(t, err)
	var ref graphRef
	require.NoError(t, json.Unmarshal(data, &ref))
	require.Len(t, ref.Models, 8, "build.py's models")
	for _, g := range ref.Models {
		t.Run(g.Name, func(t *testing.T) {
			m := models.Model{
				ID: g.Name, Dimension: g.Dimension, Pooling: g.Pooling, MaxTokens: g.MaxTokens,
				Normalize: g.Normalize, PaddingSide: g.PaddingSide, Licence: "test graph",
			}
			if g.Hidden > g.Dimension {
				m.HiddenSize = g.Hidden
			}
			cfg := DefaultConfig(m, cache)
			cfg.ModelFile = filepath.Join(graphsDir, g.Name+".onnx")
			cfg.TokenizerFile = filepath.Join(graphsDir, "tokenizer.json")
			if g.Name != "enc-mean-int8" {
				cfg.BatchSize = 3
			}
			e, err := New(cfg)
			require.NoError(t, err)
			defer e.Close()
			require.Equal(t, g.Output, e.io.output, "the output picked by name")
			require.Equal(t, g.Inputs, e.io.inputs, "the inputs fed")
			if g.Name == "enc-mean-int8" {
				require.True(t, e.Quantized())
				require.Equal(t, 1, e.BatchSize(), "a dynamically quantized graph runs one text at a time, like the reference")
			}
			for i, text := range ref.Texts {
				require.Equal(t, g.IDs[i], e.tok.Encode(text, g.MaxTokens).IDs, "text %d: token ids differ from HF tokenizers'", i)
			}
			got, err := e.Embed(t.Context(), ref.Texts, "")
			require.NoError(t, err)
			tol := 1e-5
			if v, ok := graphTolerance[g.Name]; ok {
				tol = v
			}
			worst, minCos := 0.0, 1.0
			for i, want := range g.Vectors {
				require.Len(t, got[i], len(want))
				var dot, na, nb float64
				for j := range want {
					worst = max(worst, math.Abs(float64(got[i][j]-want[j])))
					dot += float64(got[i][j]) * float64(want[j])
					na += float64(got[i][j]) * float64(got[i][j])
					nb += float64(want[j]) * float64(want[j])
				}
				minCos = min(minCos, dot/math.Sqrt(na*nb))
			}
			t.Logf("max |Go − Python ORT %s| = %.2g, min cosine %.7f over %d texts", ref.ONNXRuntime, worst, minCos, len(ref.Texts))
			if worst > tol {
				t.Errorf("largest component difference %.3g > %.0g", worst, tol)
			}
			if minCos < 0.9999 {
				t.Errorf("min cosine %.6f < 0.9999", minCos)
			}
			if !m.Normalized() {
				n := math.Sqrt(float64(Dot(got[0], got[0])))
				require.Greater(t, math.Abs(n-1), 1e-3, "normalize false leaves the length as the model gives it")
			}
		})
	}
}

// TestGraphPaddingMatters shows that the parity test exercises padding: the
// decoder graph that numbers positions itself (no position_ids input),
// padded on the left although it wants the right, shifts the positions of
// every padded text and gives other vectors.
func TestGraphPaddingMatters(t *testing.T) {
	cache := mustHaveRuntime(t)
	m := models.Model{ID: "dec-last-right", Dimension: 16, Pooling: models.PoolLastToken, MaxTokens: 40, PaddingSide: models.PadLeft}
	cfg := DefaultConfig(m, cache)
	cfg.ModelFile = filepath.Join(graphsDir, "dec-last-right.onnx")
	cfg.TokenizerFile = filepath.Join(graphsDir, "tokenizer.json")
	texts := []string{"reverse a string", "open a database connection now please"}
	vecs := func(batch int) [][]float32 {
		cfg.BatchSize = batch
		e, err := New(cfg)
		require.NoError(t, err)
		defer e.Close()
		v, err := e.Embed(t.Context(), texts, "")
		require.NoError(t, err)
		return v
	}
	alone, padded := vecs(1), vecs(2)
	require.Equal(t, alone[1], padded[1], "the longest text is not padded")
	require.Less(t, Dot(alone[0], padded[0]), float32(0.999), "a left-padded text at shifted positions")
}

func TestHalfToFloat(t *testing.T) {
	for _, tc := range []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x7bff, 65504},
		{0x0001, 5.9604645e-08}, {0x8400, -6.1035156e-05}, {0x7c00, float32(math.Inf(1))},
	} {
		if got := halfToFloat(tc.bits); got != tc.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tc.bits, got, tc.want)
		}
	}
	require.True(t, math.IsNaN(float64(halfToFloat(0x7e00))), "NaN stays NaN")
}
