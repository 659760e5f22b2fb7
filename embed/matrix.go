package embed

import (
	"container/heap"
	"fmt"
	"runtime"
	"sort"
	"sync"
)

// Matrix holds vectors row by row for exact search.
type Matrix struct {
	dim  int
	ids  []string
	data []float32 // len(ids)×dim, row-major
}

// NewMatrix returns an empty matrix of dimension dim.
func NewMatrix(dim int) *Matrix { return &Matrix{dim: dim} }

// Add appends the vector v under id. Ids need not be unique, but ties are
// broken by id, so unique ids give a total order.
func (m *Matrix) Add(id string, v []float32) error {
	if len(v) != m.dim {
		return fmt.Errorf("matrix: vector for %s has %d dimensions, want %d", id, len(v), m.dim)
	}
	m.ids = append(m.ids, id)
	m.data = append(m.data, v...)
	return nil
}

// Len returns the number of rows.
func (m *Matrix) Len() int { return len(m.ids) }

// Dim returns the vector dimension.
func (m *Matrix) Dim() int { return m.dim }

// Result is one row of a search: its id and dot product with the query.
type Result struct {
	ID    string
	Score float32
}

// parallelMin is the number of rows below which Search stays on one
// goroutine: under it, starting workers costs more than it saves.
const parallelMin = 4096

// Search returns the k rows with the largest dot product with q, best first,
// ties by ascending id. The answer is exact and independent of the number of
// workers: each row's score is computed the same way whoever computes it.
func (m *Matrix) Search(q []float32, k int) ([]Result, error) {
	if len(q) != m.dim {
		return nil, fmt.Errorf("matrix: query has %d dimensions, want %d", len(q), m.dim)
	}
	n := len(m.ids)
	if k <= 0 || n == 0 {
		return nil, nil
	}
	k = min(k, n)
	workers := 1
	if n >= parallelMin {
		workers = min(runtime.NumCPU(), n/(parallelMin/4))
	}
	parts := make([]topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = m.scan(q, k, lo, hi)
		}()
	}
	wg.Wait()
	all := parts[0]
	for _, p := range parts[1:] {
		for _, r := range p.rows {
			all.offer(r, k)
		}
	}
	out := make([]Result, len(all.rows))
	for i, r := range all.rows {
		out[i] = Result{ID: m.ids[r.row], Score: r.score}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out, nil
}

// scan keeps the best k of rows [lo, hi).
func (m *Matrix) scan(q []float32, k, lo, hi int) topK {
	t := topK{m: m, rows: make([]scored, 0, k)}
	d := m.dim
	for r := lo; r < hi; r++ {
		t.offer(scored{row: r, score: Dot(q, m.data[r*d:(r+1)*d])}, k)
	}
	return t
}

type scored struct {
	row   int
	score float32
}

// better is the result order: score descending, then id ascending.
func better(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// topK is a min-heap under `better`: its root is the worst kept row.
type topK struct {
	m    *Matrix
	rows []scored
}

func (t *topK) Len() int { return len(t.rows) }
func (t *topK) Less(i, j int) bool {
	return t.better(t.rows[j], t.rows[i])
}
func (t *topK) Swap(i, j int) { t.rows[i], t.rows[j] = t.rows[j], t.rows[i] }
func (t *topK) Push(x any)    { t.rows = append(t.rows, x.(scored)) }
func (t *topK) Pop() any {
	x := t.rows[len(t.rows)-1]
	t.rows = t.rows[:len(t.rows)-1]
	return x
}

func (t *topK) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.m.ids[a.row] < t.m.ids[b.row]
}

// offer keeps r if it is among the best k seen.
func (t *topK) offer(r scored, k int) {
	if len(t.rows) < k {
		heap.Push(t, r)
		return
	}
	if t.better(r, t.rows[0]) {
		t.rows[0] = r
		heap.Fix(t, 0)
	}
}
