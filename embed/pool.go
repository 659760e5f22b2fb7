package embed

import (
	"fmt"
	"math"
)

// Pooling names, as the model manifest spells them.
const (
	PoolCLS       = "cls"
	PoolMean      = "mean"
	PoolLastToken = "lasttoken"
)

// pool reduces one text's hidden states to a vector. hidden holds seqLen×dim
// floats of one batch row; mask holds its seqLen attention mask values. out
// receives dim floats. Mean pooling averages the positions whose mask is 1
// (padding never counts); CLS pooling takes the first such position (0 with
// right padding) and last-token pooling the last (the end token a decoder's
// tokenizer appends, with right or left padding alike).
func pool(pooling string, hidden []float32, mask []int64, seqLen, dim int, out []float32) error {
	if len(hidden) < seqLen*dim || len(mask) < seqLen || len(out) < dim {
		return fmt.Errorf("pool: short buffers (hidden %d, mask %d, out %d for %d×%d)", len(hidden), len(mask), len(out), seqLen, dim)
	}
	switch pooling {
	case PoolCLS, PoolLastToken:
		t := -1
		for i := range seqLen {
			if mask[i] != 0 {
				t = i
				if pooling == PoolCLS {
					break
				}
			}
		}
		if t < 0 {
			clear(out[:dim])
			return nil
		}
		copy(out[:dim], hidden[t*dim:(t+1)*dim])
	case PoolMean:
		clear(out[:dim])
		n := 0
		for t := 0; t < seqLen; t++ {
			if mask[t] == 0 {
				continue
			}
			n++
			row := hidden[t*dim : (t+1)*dim]
			for j, v := range row {
				out[j] += v
			}
		}
		if n > 0 {
			inv := 1 / float32(n)
			for j := range out[:dim] {
				out[j] *= inv
			}
		}
	default:
		return fmt.Errorf("unknown pooling %q (want %q, %q or %q)", pooling, PoolCLS, PoolMean, PoolLastToken)
	}
	return nil
}

// normalize scales v to unit L2 length in place; a zero vector stays zero.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// Dot returns the dot product of a and b (cosine similarity for normalised
// vectors). It panics if the lengths differ, like a slice index would.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("embed.Dot: lengths %d and %d", len(a), len(b)))
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
