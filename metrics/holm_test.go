package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestHolm checks Holm's adjusted p-values against independent references:
// the textbook example (Wikipedia, "Holm–Bonferroni method": four
// hypotheses, p = 0.01, 0.04, 0.03, 0.005; H4 and H1 rejected at α = 0.05)
// worked by hand, and values from statsmodels 0.15.0
// multipletests(ps, method="holm") (scratch venv, not part of the module).
func TestHolm(t *testing.T) {
	tests := []struct {
		name, reason string
		ps, want     []float64
	}{
		{"textbook", "sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → running max 0.06",
			[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"statsmodels_ten", "statsmodels multipletests holm, with a tie (0.03 twice) and values capped at 1",
			[]float64{0.0001, 0.2, 0.03, 0.03, 0.5, 0.0104, 0.9, 0.012, 0.04, 0.001},
			[]float64{0.001, 0.6, 0.18, 0.18, 1, 0.0832, 1, 0.084, 0.18, 0.009}},
		{"statsmodels_cap", "statsmodels: 3·0.6 and the running max both cap at 1",
			[]float64{0.6, 0.7, 0.01}, []float64{1, 1, 0.03}},
		{"one", "a single test is not corrected", []float64{0.3}, []float64{0.3}},
		{"empty", "no tests, no values", []float64{}, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Holm(tt.ps), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestHolmNaN: a NaN p-value (a test that could not be run) stays NaN,
// still counts in m, and does not change the order of the others.
func TestHolmNaN(t *testing.T) {
	got := Holm([]float64{math.NaN(), 0.01, 0.02})
	if !math.IsNaN(got[0]) {
		t.Errorf("Holm(NaN, …)[0] = %v, want NaN", got[0])
	}
	if diff := cmp.Diff([]float64{0.03, 0.04}, got[1:], cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("m = 3 with the NaN (-want +got):\n%s", diff)
	}
}

// TestHolmFamilyWiseError measures, under the null (every system's values
// drawn from one distribution), how many of 19 paired randomization tests
// against one baseline are "significant" at α = 0.05 — about 19·0.05 ≈ 0.95
// per table raw — and how often at least one is: below 1 − 0.95^19 ≈ 0.62
// raw (the tests share the baseline, so they are correlated) and at most α
// with Holm.
func TestHolmFamilyWiseError(t *testing.T) {
	const (
		trials, systems, tasks, alpha = 200, 19, 50, 0.05
	)
	rng := rand.New(rand.NewPCG(7, 11))
	draw := func() []float64 {
		v := make([]float64, tasks)
		for i := range v {
			v[i] = rng.Float64()
		}
		return v
	}
	var rawAny, holmAny, rawCount int
	for trial := range trials {
		base := draw()
		ps := make([]float64, systems)
		for s := range ps {
			ps[s] = Permutation(base, draw(), 400, uint64(trial*systems+s))
		}
		raw, holm := 0, 0
		for i, p := range Holm(ps) {
			if ps[i] < alpha {
				raw++
			}
			if p < alpha {
				holm++
			}
		}
		rawCount += raw
		if raw > 0 {
			rawAny++
		}
		if holm > 0 {
			holmAny++
		}
	}
	rawFWER, holmFWER := float64(rawAny)/trials, float64(holmAny)/trials
	t.Logf("19 null comparisons × %d trials: raw %.2f spurious per table, family-wise error raw %.3f, Holm %.3f",
		trials, float64(rawCount)/trials, rawFWER, holmFWER)
	if perTable := float64(rawCount) / trials; perTable < 0.7 || rawFWER < 0.3 {
		t.Errorf("raw: %.2f spurious per table, family-wise error %.3f: want about 0.95 and above 0.3 (the test would not show what Holm corrects)", perTable, rawFWER)
	}
	// 200 trials: the binomial standard error at 0.05 is 0.015.
	if holmFWER > alpha+3*0.016 {
		t.Errorf("Holm family-wise error %.3f > α = %.2f beyond sampling error", holmFWER, alpha)
	}
}
