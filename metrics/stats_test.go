package metrics

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStatsIsTheFunctions: a Stats value's methods are the package's
// resampling functions with its resamples and seed, so a caller that moved
// from the functions to the value keeps its numbers.
func TestStatsIsTheFunctions(t *testing.T) {
	a := []float64{0.1, 0.5, 0.9, 0.3, 1, 0, 0.7, 0.2}
	b := []float64{0.3, 0.4, 1, 0.6, 1, 0.2, 0.7, 0.5}
	st := Stats{Resamples: 700, Seed: 99, Alpha: 0.05}
	if got, want := st.CI(a), Bootstrap(a, 700, 99); got != want {
		t.Errorf("CI = %+v, Bootstrap = %+v", got, want)
	}
	if got, want := st.Paired(a, b), PairedBootstrap(a, b, 700, 99); got != want {
		t.Errorf("Paired = %+v, PairedBootstrap = %+v", got, want)
	}
	if got, want := st.Permutation(a, b), Permutation(a, b, 700, 99); got != want {
		t.Errorf("Permutation = %v, want %v", got, want)
	}
	if !st.Significant(0.049) || st.Significant(0.05) {
		t.Errorf("Significant: want p < α only")
	}
	if d := DefaultStats(); d != (Stats{Resamples: 1000, Seed: 20240623, Alpha: 0.05}) {
		t.Errorf("DefaultStats = %+v: the golden files' CIs were computed with 1000 resamples and seed 20240623", d)
	}
	for _, bad := range []Stats{{Alpha: 0}, {Alpha: 1}, {Alpha: 0.05, Resamples: -1}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v): want an error", bad)
		}
	}
}

// TestStratified checks the stratified bootstrap against a direct
// implementation of its definition (draws in group order from one PCG
// stream, type-7 quantiles), that one group with DefaultStream is Bootstrap
// itself, and that constant groups give a point interval.
func TestStratified(t *testing.T) {
	groups := [][]float64{{1, 0, 0.5}, {0.25}, {1, 1, 0, 0.75, 0.5}}
	st := Stats{Resamples: 500, Seed: 7}
	const stream = 12345
	r := rand.New(rand.NewPCG(7, stream))
	var means []float64
	for range 500 {
		m := 0.0
		for _, g := range groups {
			s := 0.0
			for range g {
				s += g[r.IntN(len(g))]
			}
			m += s / float64(len(g))
		}
		means = append(means, m/3)
	}
	slices.Sort(means)
	q := func(p float64) float64 {
		pos := p * 499
		i := int(pos)
		return means[i] + (pos-float64(i))*(means[i+1]-means[i])
	}
	if lo, hi := st.Stratified(groups, stream); lo != q(0.025) || hi != q(0.975) {
		t.Errorf("Stratified = %v, %v; by definition %v, %v", lo, hi, q(0.025), q(0.975))
	}
	col := groups[2]
	ci := Bootstrap(col, 500, 7)
	if lo, hi := st.Stratified([][]float64{col}, DefaultStream); lo != ci.Low || hi != ci.High {
		t.Errorf("one group: %v, %v; Bootstrap %v, %v", lo, hi, ci.Low, ci.High)
	}
	if lo, hi := st.Stratified([][]float64{{0.5, 0.5}, {1, 1, 1}}, DefaultStream); lo != 0.75 || hi != 0.75 {
		t.Errorf("constant groups: %v, %v; want 0.75, 0.75", lo, hi)
	}
	if lo, hi := st.Stratified(nil, DefaultStream); lo != 0 || hi != 0 {
		t.Errorf("no groups: %v, %v", lo, hi)
	}
}
