package metrics

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestMcNemar(t *testing.T) {
	tests := []struct {
		name, reason string
		a, b         []float64
		want         McNemarResult
	}{
		{"all_to_b", "B=0, C=5: P = 2·(1/2)^5", []float64{0, 0, 0, 0, 0, 1}, []float64{1, 1, 1, 1, 1, 1}, McNemarResult{0, 5, 0.0625}},
		{"balanced", "B=1, C=1: P[X≤1] = 3/4, doubled and capped at 1", []float64{1, 0}, []float64{0, 1}, McNemarResult{1, 1, 1}},
		{"two_eight", "B=2, C=8: P = 2·(1+10+45)/1024", []float64{1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, []float64{0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, McNemarResult{2, 8, 2 * 56.0 / 1024}},
		{"no_discordant", "identical outcomes: P = 1", []float64{1, 0}, []float64{1, 0}, McNemarResult{0, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := McNemar(tt.a, tt.b)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
	if _, err := McNemar([]float64{0.5}, []float64{1}); !errors.Is(err, ErrNotBinary) {
		t.Errorf("non-binary value: err = %v, want ErrNotBinary", err)
	}
	if _, err := McNemar([]float64{1}, nil); err == nil {
		t.Errorf("length mismatch: want an error")
	}
}

func TestPermutation(t *testing.T) {
	// d = (1, 1, 1): of the 8 equally likely sign patterns, 2 (all + or all −)
	// reach |mean| ≥ 1, so the exact p-value is 1/4.
	a := []float64{0, 0, 0}
	b := []float64{1, 1, 1}
	p := Permutation(a, b, 20000, 7)
	if math.Abs(p-0.25) > 0.015 {
		t.Errorf("p = %v, want about 0.25", p)
	}
	if p2 := Permutation(a, b, 20000, 7); p2 != p {
		t.Errorf("same seed, different p: %v vs %v", p, p2)
	}
	if p := Permutation(b, b, 100, 1); p != 1 {
		t.Errorf("no difference: p = %v, want 1", p)
	}
	// 40 queries all improved by 0.1: only the two all-equal-sign patterns out
	// of 2^40 are as extreme, so p is the smallest possible, 1/(rounds+1).
	a, b = make([]float64, 40), make([]float64, 40)
	for i := range b {
		b[i] = 0.1
	}
	if p := Permutation(a, b, 999, 1); p != 1.0/1000 {
		t.Errorf("consistent improvement: p = %v, want 1/1000", p)
	}
}

func TestPairedBootstrap(t *testing.T) {
	a := []float64{0.1, 0.2, 0.3, 0.4}
	b := []float64{0.6, 0.7, 0.8, 0.9}
	got := PairedBootstrap(a, b, 1000, 3)
	want := Paired{MeanDiff: 0.5, Low: 0.5, High: 0.5, P: 1.0 / 1001, N: 4}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("constant difference 0.5: zero-width CI, smallest p (-want +got):\n%s", diff)
	}
	if got := PairedBootstrap(a, a, 1000, 3); got.P != 1 || got.MeanDiff != 0 {
		t.Errorf("identical runs: %+v, want MeanDiff 0 and P 1", got)
	}
	// Noisy differences around 0: the CI must contain 0 and p be large.
	noisy := []float64{0.1, -0.1, 0.2, -0.2, 0.05, -0.05, 0.1, -0.1}
	zero := make([]float64, len(noisy))
	got = PairedBootstrap(zero, noisy, 2000, 9)
	if !(got.Low <= 0 && 0 <= got.High) || got.P < 0.5 {
		t.Errorf("differences centred on 0: %+v, want a CI containing 0 and p ≥ 0.5", got)
	}
	if again := PairedBootstrap(zero, noisy, 2000, 9); again != got {
		t.Errorf("same seed, different results: %+v vs %+v", got, again)
	}
}
