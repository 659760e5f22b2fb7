package metrics

import (
	"math"
	"sort"
)

// Holm returns the Holm step-down adjusted p-values of ps, in the order of
// ps: with the m p-values sorted ascending as p(1) ≤ … ≤ p(m), the adjusted
// value of p(i) is min(1, max over j ≤ i of (m − j + 1)·p(j)). Rejecting
// every hypothesis whose adjusted p-value is below α controls the
// family-wise error rate at α (Holm 1979) under any dependence between the
// tests — what a table that compares many systems with one baseline, or
// with the best, needs so that chance alone does not make one of them
// "significant". Ties keep their input order; a NaN p-value stays NaN and
// counts as a test (m includes it) without taking part in the running
// maximum. An empty ps gives an empty slice.
func Holm(ps []float64) []float64 {
	m := len(ps)
	adj := make([]float64, m)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	// NaNs sort last, so that they never lower another value's factor.
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := ps[idx[a]], ps[idx[b]]
		if math.IsNaN(pb) {
			return !math.IsNaN(pa)
		}
		return pa < pb
	})
	running := 0.0
	for rank, i := range idx {
		p := ps[i]
		if math.IsNaN(p) {
			adj[i] = p
			continue
		}
		running = max(running, min(1, float64(m-rank)*p))
		adj[i] = running
	}
	return adj
}
