// Package wordcount is a retrieval system written outside retrievalbench,
// as a user would write theirs: it ranks docs by how many distinct query
// words they contain (ties by doc order). It shows what a system needs to
// be benchmarked: the three methods of systems.System and a Spec.
package wordcount

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// System is a word-count index of one corpus.
type System struct {
	ids   []string
	words []map[string]bool
}

// Spec is the benchmark value of the system: a name, a config hash that
// changes when the ranking rule does, a constructor, and how the bench
// checks it (Bench: no tolerance, for a deterministic ranking).
func Spec() systems.Spec {
	return systems.Spec{
		System: "wordcount", Config: "distinct-v1", Hash: "wordcount-distinct-v1",
		New:   func(systems.Options) (systems.System, error) { return &System{}, nil },
		Bench: systems.Schedule{ToleranceReason: "deterministic"},
	}
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			m[w] = true
		}
	}
	return m
}

// Index keeps the words of every doc.
func (s *System) Index(_ context.Context, c *corpus.Corpus) error {
	s.ids, s.words = nil, nil
	for _, d := range c.Docs {
		s.ids = append(s.ids, d.ID)
		s.words = append(s.words, words(d.Symbol+" "+d.Title+" "+d.Text))
	}
	return nil
}

// Search returns the k docs sharing the most distinct words with query.
func (s *System) Search(_ context.Context, query string, k int) ([]systems.Hit, error) {
	q := words(query)
	var hits []systems.Hit
	for i, ws := range s.words {
		n := 0
		for w := range q {
			if ws[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, systems.Hit{DocID: s.ids[i], Score: float64(n)})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// Close releases nothing.
func (s *System) Close() error { return nil }
