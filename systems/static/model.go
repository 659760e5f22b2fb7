package static

import (
	"errors"
	"fmt"
	"math"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/embed/safetensors"
	"github.com/retrievalbench/retrievalbench/embed/tokenizer"
)

// Model is a loaded static embedding model. It is safe for concurrent use.
type Model struct {
	m          models.Model
	tok        *tokenizer.Tokenizer
	maxTokens  int
	mapping    []int32   // token id → row of embeddings
	weights    []float32 // token id → scale
	embeddings []int8    // rows × dim
	dim        int
}

// Load reads the static model m from cacheDir (its files checked against the
// manifest first) with at most maxTokens tokens per text (0: the manifest's).
func Load(m models.Model, cacheDir string, maxTokens int) (*Model, error) {
	if m.Kind != models.KindStatic {
		return nil, fmt.Errorf("static: model %s is not a static model", m.ID)
	}
	if err := models.Verify(cacheDir, m); err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	if maxTokens <= 0 {
		maxTokens = m.MaxTokens
	}
	return load(m, m.Path(cacheDir, models.StaticFile), m.Path(cacheDir, models.TokenizerFile), maxTokens)
}

func load(m models.Model, weightsFile, tokFile string, maxTokens int) (*Model, error) {
	tok, err := tokenizer.Load(tokFile)
	if err != nil {
		return nil, fmt.Errorf("static: model %s: %w", m.ID, err)
	}
	f, err := safetensors.Read(weightsFile)
	if err != nil {
		return nil, fmt.Errorf("static: model %s: %w", m.ID, err)
	}
	mapping, _, err1 := f.I64("mapping")
	weights, _, err2 := f.F32("weights")
	emb, te, err3 := f.I8("embeddings")
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("static: model %s: %w", m.ID, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("static: model %s: %s: %s", m.ID, weightsFile, fmt.Sprintf(format, args...))
	}
	if len(te.Shape) != 2 || te.Shape[1] != m.Dimension {
		return nil, bad("embeddings have shape %v, want [rows, %d] (the manifest's dimension)", te.Shape, m.Dimension)
	}
	rows := te.Shape[0]
	if len(mapping) != len(weights) {
		return nil, bad("mapping has %d entries, weights %d; want one of each per token id", len(mapping), len(weights))
	}
	if n := tok.VocabSize(); n > len(mapping) {
		return nil, bad("the tokenizer has %d token ids, mapping only %d", n, len(mapping))
	}
	x := &Model{m: m, tok: tok, maxTokens: maxTokens, weights: weights, embeddings: emb, dim: m.Dimension,
		mapping: make([]int32, len(mapping))}
	for i, r := range mapping {
		if r < 0 || r >= int64(rows) {
			return nil, bad("mapping[%d] = %d is outside the %d embedding rows", i, r, rows)
		}
		x.mapping[i] = int32(r)
	}
	return x, nil
}

// Dim is the vector dimension.
func (x *Model) Dim() int { return x.dim }

// IDs returns the token ids a text is averaged over, and whether the text
// had more than MaxTokens of them.
func (x *Model) IDs(text string) ([]int64, bool) {
	enc := x.tok.Encode(text, x.maxTokens)
	return enc.IDs, enc.Truncated
}

// Embed returns the unit-length vector of text (all zeros when the text has
// no tokens) and whether it was truncated.
func (x *Model) Embed(text string) ([]float32, bool) {
	ids, truncated := x.IDs(text)
	v := make([]float32, x.dim)
	if len(ids) == 0 {
		return v, truncated
	}
	acc := make([]float64, x.dim)
	for _, t := range ids {
		if t < 0 || int(t) >= len(x.mapping) {
			continue // cannot happen: the tokenizer's ids are checked in load
		}
		w := float64(x.weights[t])
		row := x.embeddings[int(x.mapping[t])*x.dim:][:x.dim]
		for i, e := range row {
			acc[i] += w * float64(e)
		}
	}
	var ss float64
	for i := range acc {
		acc[i] /= float64(len(ids))
		ss += acc[i] * acc[i]
	}
	if ss == 0 {
		return v, truncated
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(acc[i] * inv)
	}
	return v, truncated
}
