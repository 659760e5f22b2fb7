package embed

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// bruteForce is the reference: score every row, sort by (score desc, id asc).
func bruteForce(ids []string, vecs [][]float32, q []float32, k int) []Result {
	all := make([]Result, len(ids))
	for i := range ids {
		all[i] = Result{ID: ids[i], Score: Dot(q, vecs[i])}
	}
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	return all[:min(k, len(all))]
}

func TestMatrixSearch(t *testing.T) {
	tests := []struct {
		name   string
		n, dim int
		k      int
		levels int // values per coordinate; few levels force ties
		reason string
	}{
		{"small", 50, 8, 10, 1000, "single worker path"},
		{"ties", 300, 2, 40, 2, "many equal scores: order must fall back to id"},
		{"parallel", 3 * parallelMin, 16, 25, 1000, "rows split across workers and merged"},
		{"parallel-ties", 2 * parallelMin, 3, 100, 2, "ties that span worker boundaries"},
		{"k-larger", 7, 4, 20, 1000, "k above the row count returns every row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.n)))
			m := NewMatrix(tt.dim)
			ids := make([]string, tt.n)
			vecs := make([][]float32, tt.n)
			for i := range tt.n {
				// Ids not in row order, so the tie rule is visible.
				ids[i] = fmt.Sprintf("doc%06d", (i*7919)%tt.n)
				v := make([]float32, tt.dim)
				for j := range v {
					v[j] = float32(rng.IntN(tt.levels)) / float32(tt.levels)
				}
				vecs[i] = v
				require.NoError(t, m.Add(ids[i], v))
			}
			q := make([]float32, tt.dim)
			for j := range q {
				q[j] = 1
			}
			got, err := m.Search(q, tt.k)
			require.NoError(t, err)
			if diff := cmp.Diff(bruteForce(ids, vecs, q, tt.k), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestMatrixErrors(t *testing.T) {
	m := NewMatrix(3)
	if err := m.Add("a", []float32{1, 2}); err == nil {
		t.Error("Add accepted a vector of the wrong dimension")
	}
	if _, err := m.Search([]float32{1}, 1); err == nil {
		t.Error("Search accepted a query of the wrong dimension")
	}
	got, err := m.Search([]float32{1, 0, 0}, 5)
	if err != nil || len(got) != 0 {
		t.Errorf("empty matrix: got %v, %v; want no results", got, err)
	}
}
