package bm25

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/systems"
)

// Search ranks an OR query of n terms exactly as FTS5's bm25() ranks it in
// SQL (SearchFTS5), at a fraction of the cost, by summing per-term
// contributions that FTS5 itself computed:
//
// FTS5's bm25() of a row is -Σ_i idf_i · f_i·(k1+1) / (f_i + k1·(1-b+b·D/avgdl)),
// the sum running over the query's phrases i in order, where idf_i depends
// only on how many rows match phrase i alone, f_i only on phrase i's
// instances in the row, and D and avgdl not on the query at all. A phrase
// that does not occur in the row adds exactly 0. So the value FTS5 computes
// for "t_i" alone, on a row, is exactly the i-th term of the OR query's sum
// on that row, and adding those values in phrase order, starting from 0,
// repeats FTS5's floating-point operations one for one: the scores are
// bit-identical, and so is the ranking (score descending, rowid
// ascending). The matches are the union of the phrases' matches, as an OR
// query's are.
//
// Each term's contributions are fetched once (one FTS5 query for that phrase
// alone) and kept for the life of the open index, so a term is paid for at
// its first query only; the OR query, in contrast, re-scores every row that
// matches any of its terms through the auxiliary-function interface, one
// call per row, and sorts them all.

// contrib is one row's share of one term's score.
type contrib struct {
	row   int32 // rowid - 1
	score float64
}

// scorer holds the per-term contributions and the per-query scratch.
type scorer struct {
	terms   map[string][]contrib
	acc     []float64
	touched []int32
	seen    []bool
}

func newScorer(docs int) *scorer {
	return &scorer{terms: map[string][]contrib{}, acc: make([]float64, docs), seen: make([]bool, docs)}
}

// contribs returns term's contributions, fetching them at first use.
func (s *scorer) contribs(ctx context.Context, x *Index, term string) ([]contrib, error) {
	if c, ok := s.terms[term]; ok {
		return c, nil
	}
	rows, err := x.term.QueryContext(ctx, `"`+strings.ReplaceAll(term, `"`, `""`)+`"`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var c []contrib
	for rows.Next() {
		var rowid int64
		var score float64
		if err := rows.Scan(&rowid, &score); err != nil {
			return nil, err
		}
		if rowid < 1 || rowid > int64(len(x.ids)) {
			return nil, fmt.Errorf("rowid %d outside the index", rowid)
		}
		c = append(c, contrib{int32(rowid - 1), score})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.terms[term] = c
	return c, nil
}

// search returns the k best rows for the OR of terms (see above).
func (s *scorer) search(ctx context.Context, x *Index, terms []string, k int) ([]systems.Hit, error) {
	s.touched = s.touched[:0]
	for _, t := range terms {
		cs, err := s.contribs(ctx, x, t)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !s.seen[c.row] {
				s.seen[c.row] = true
				s.touched = append(s.touched, c.row)
			}
			s.acc[c.row] += c.score
		}
	}
	return s.top(x, k), nil
}

// better is the SQL order: score descending, rowid ascending.
func better(acc []float64, a, b int32) bool {
	if acc[a] != acc[b] {
		return acc[a] > acc[b]
	}
	return a < b
}

// topRows returns the k best of rows by better, best first: a bounded heap
// whose root is the worst row kept.
func topRows(acc []float64, rows []int32, k int) []int32 {
	h := make([]int32, 0, min(k, len(rows)))
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			w := l
			if r := l + 1; r < len(h) && better(acc, h[l], h[r]) {
				w = r
			}
			if !better(acc, h[i], h[w]) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for _, r := range rows {
		switch {
		case len(h) < k:
			h = append(h, r)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(acc, h[p], h[i]) {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
		case better(acc, r, h[0]):
			h[0] = r
			down(0)
		}
	}
	out := make([]int32, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = h[0]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		down(0)
	}
	return out
}

// searchMem is search over the decoded index; ok is false when a term is
// not exactly one token (FTS5 then matches a phrase, or nothing), which
// the callers leave to SQL.
func (s *scorer) searchMem(ctx context.Context, x *Index, terms []string, k int) (hits []systems.Hit, ok bool, err error) {
	toks, err := x.toks.tokens(ctx, terms)
	if err != nil {
		return nil, false, err
	}
	for _, t := range toks {
		if len(t) != 1 {
			return nil, false, nil
		}
	}
	s.touched = s.touched[:0]
	for _, t := range toks {
		s.touched = x.mem.score(x.mem.terms[t[0]], s.acc, s.seen, s.touched)
	}
	return s.top(x, k), true, nil
}

// top returns the k best touched rows as hits and resets the scratch.
func (s *scorer) top(x *Index, k int) []systems.Hit {
	top := topRows(s.acc, s.touched, k)
	var hits []systems.Hit // nil without matches, as SearchFTS5
	if len(top) > 0 {
		hits = make([]systems.Hit, len(top))
	}
	for i, r := range top {
		hits[i] = systems.Hit{DocID: x.ids[r], Score: s.acc[r]}
	}
	for _, r := range s.touched {
		s.acc[r], s.seen[r] = 0, false
	}
	return hits
}
