package metrics

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortIdeal holds sortIdeal's counting to sorting (highest first) on
// random gains: whole grades in its range, and lists with a gain it does
// not count (a fraction, a grade above its range, NaN), which it sorts.
func TestSortIdeal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	odd := []float64{0.5, maxCountedGain + 1, 1e9, math.NaN(), math.Inf(1)}
	for i := range 300 {
		var gains []float64
		for range r.IntN(600) {
			gains = append(gains, float64(1+r.IntN(maxCountedGain)))
		}
		if i%3 == 0 && len(gains) > 0 {
			gains[r.IntN(len(gains))] = odd[r.IntN(len(odd))]
		}
		want := slices.Clone(gains)
		slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
		j := Judged{Ideal: gains}
		j.sortIdeal()
		if !slices.EqualFunc(j.Ideal, want, func(a, b float64) bool { return a == b || (a != a && b != b) }) {
			t.Fatalf("case %d: sortIdeal %v, want %v", i, j.Ideal, want)
		}
	}
}
