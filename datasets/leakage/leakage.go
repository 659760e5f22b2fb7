// Package leakage measures how much of a retrieval dataset can be solved by
// string matching rather than retrieval: queries whose text is copied into
// the corpus (in their own gold, or in another document), and documents
// that are exact or near duplicates of each other.
//
// # Query leakage
//
// Query and documents are compared after whitespace normalization (every
// run of white space is one space, ends trimmed); nothing else is changed,
// so "verbatim" means byte-equal up to white space. A task counts as
//
//   - Full: its whole normalized query occurs in a document;
//   - Span: some span of its query of at least MinTokens (8)
//     whitespace-separated tokens, or at least MinChars (50) characters,
//     occurs in a document. Checking the shortest such span at every token
//     start is enough: a longer verbatim span contains one. A whole query
//     shorter than both thresholds is no span (a two-word query found in a
//     file says little); it still counts as Full.
//
// Each count is split by where: in the task's gold (the text of its gold
// documents, files or sections, or a needle's body) and in the corpus
// outside the gold. Gold that cannot be turned into text without a
// chunker (a symbol) is counted as GoldUnresolved.
//
// # Duplicates
//
// Exact duplicates are non-empty documents with equal normalized text
// (every copy after the first counts; empty files such as a package's
// __init__.py are counted apart, as EmptyDocs). Near duplicates are pairs of distinct texts with
// a Jaccard similarity of their word 5-shingle sets of at least
// NearThreshold (0.8), found by MinHash (NumHashes seeded hash functions)
// with locality-sensitive banding and confirmed on the MinHash estimate.
// The estimate is checked against the exact Jaccard similarity on a seeded
// sample of candidate pairs (SampleSize), reported as the mean and maximum
// absolute error. Outputs depend only on the data and Config.Seed.
package leakage

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"index/suffixarray"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// Config holds the thresholds.
type Config struct {
	MinTokens     int     // a span of at least this many tokens …
	MinChars      int     // … or at least this many characters counts
	Shingle       int     // words per shingle for near duplicates
	NumHashes     int     // MinHash signature length (a multiple of Bands)
	Bands         int     // LSH bands
	NearThreshold float64 // Jaccard similarity that makes a near duplicate
	SampleSize    int     // candidate pairs checked against exact Jaccard
	Seed          uint64
}

// DefaultConfig is the configuration the package doc describes.
func DefaultConfig() Config {
	return Config{MinTokens: 8, MinChars: 50, Shingle: 5, NumHashes: 128, Bands: 32, NearThreshold: 0.8, SampleSize: 200, Seed: 1}
}

// Validate reports a configuration that cannot be used.
func (c Config) Validate() error {
	switch {
	case c.MinTokens < 1 || c.MinChars < 1:
		return fmt.Errorf("leakage: MinTokens and MinChars must be positive")
	case c.Shingle < 1:
		return fmt.Errorf("leakage: Shingle must be positive")
	case c.Bands < 1 || c.NumHashes < c.Bands || c.NumHashes%c.Bands != 0:
		return fmt.Errorf("leakage: NumHashes (%d) must be a positive multiple of Bands (%d)", c.NumHashes, c.Bands)
	case c.NearThreshold <= 0 || c.NearThreshold > 1:
		return fmt.Errorf("leakage: NearThreshold %v outside (0, 1]", c.NearThreshold)
	case c.SampleSize < 0:
		return fmt.Errorf("leakage: SampleSize must not be negative")
	}
	return nil
}

// Where counts tasks by where their query text was found.
type Where struct {
	Gold  int // in the task's own gold
	Other int // in a corpus document outside the task's gold
	Any   int // in either
}

// Report is the leakage of one dataset.
type Report struct {
	Dataset        string
	Tasks          int
	Full           Where // whole query verbatim
	Span           Where // a long span of the query verbatim
	GoldUnresolved int   // tasks with gold that has no text to compare (symbols)
	// Examples are up to three task ids with a span in their gold, and three
	// with one elsewhere, for inspection.
	GoldExamples, OtherExamples []string

	Docs          int
	EmptyDocs     int // documents with no text but white space (not counted as duplicates)
	ExactDupDocs  int // non-empty documents whose text repeats an earlier one
	NearDupPairs  int // pairs of distinct texts with Jaccard ≥ NearThreshold
	NearDupDocs   int // documents in at least one near-duplicate pair
	CheckedPairs  int // candidate pairs compared with exact Jaccard
	MeanAbsError  float64
	MaxAbsError   float64
	NearThreshold float64
}

// Summary is the one-line form of r, for a dataset's summary.
func (r *Report) Summary() string {
	pct := func(n int) string {
		if r.Tasks == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(r.Tasks))
	}
	s := fmt.Sprintf("leakage %s: %d tasks; query span verbatim in gold %s, elsewhere in corpus %s; whole query in gold %s, elsewhere %s",
		r.Dataset, r.Tasks, pct(r.Span.Gold), pct(r.Span.Other), pct(r.Full.Gold), pct(r.Full.Other))
	if r.GoldUnresolved > 0 {
		s += fmt.Sprintf("; %d tasks with symbol gold not compared", r.GoldUnresolved)
	}
	s += fmt.Sprintf("; %d docs (%d empty): %d exact duplicates, %d near-duplicate pairs (Jaccard ≥ %.2f, %d docs)",
		r.Docs, r.EmptyDocs, r.ExactDupDocs, r.NearDupPairs, r.NearThreshold, r.NearDupDocs)
	if r.CheckedPairs > 0 {
		s += fmt.Sprintf("; MinHash error on %d pairs: mean %.3f, max %.3f", r.CheckedPairs, r.MeanAbsError, r.MaxAbsError)
	}
	return s
}

// normalize collapses white space.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// index finds normalized text in the documents of one corpus.
type index struct {
	sa     *suffixarray.Index
	starts []int // byte offset of each document in the concatenation
	byID   map[string]int
	byPath map[string][]int
	docs   []string // normalized texts
}

func newIndex(c *corpus.Corpus) *index {
	x := &index{byID: map[string]int{}, byPath: map[string][]int{}}
	var buf bytes.Buffer
	for i := range c.Docs {
		d := &c.Docs[i]
		t := normalize(strings.ReplaceAll(d.Title+"\n"+d.Text, "\x00", " "))
		x.starts = append(x.starts, buf.Len())
		x.docs = append(x.docs, t)
		buf.WriteString(t)
		buf.WriteByte(0) // no normalized query contains NUL, so no match spans two docs
		x.byID[d.ID] = i
		if d.Path != "" {
			x.byPath[d.Path] = append(x.byPath[d.Path], i)
		}
	}
	x.sa = suffixarray.New(buf.Bytes())
	return x
}

// docsWith returns the documents that contain s.
func (x *index) docsWith(s string) []int {
	var ds []int
	for _, off := range x.sa.Lookup([]byte(s), -1) {
		ds = append(ds, sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })-1)
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}

// gold returns the documents and extra texts (needle bodies) of a task's
// gold, and whether some gold had no text (a symbol).
func (x *index) gold(t *datasets.Task) (docs map[int]bool, texts []string, unresolved bool) {
	docs = map[int]bool{}
	for _, g := range t.Gold {
		switch g.Kind {
		case "needle":
			texts = append(texts, normalize(g.Body))
		case "doc", "doc_section":
			if i, ok := x.byID[g.ID]; ok {
				docs[i] = true
			} else if ps := x.byPath[strings.SplitN(g.ID, "#", 2)[0]]; len(ps) > 0 {
				for _, i := range ps {
					docs[i] = true
				}
			} else {
				unresolved = true
			}
		case "file", "test", "config":
			ps := x.byPath[g.ID]
			if len(ps) == 0 {
				unresolved = true
			}
			for _, i := range ps {
				docs[i] = true
			}
		default: // symbol: needs the chunker to find its text
			unresolved = true
		}
	}
	return docs, texts, unresolved
}

// spans returns the shortest spans of q's tokens that reach the
// thresholds, one per start token.
func spans(q string, cfg Config) []string {
	toks := strings.Fields(q)
	var out []string
	for i := range toks {
		n := 0
		for j := i; j < len(toks); j++ {
			if j > i {
				n++ // the separating space
			}
			n += len(toks[j])
			if j+1-i >= cfg.MinTokens || n >= cfg.MinChars {
				out = append(out, strings.Join(toks[i:j+1], " "))
				break
			}
		}
	}
	return out
}

// found records where a string was found for one task.
type found struct{ gold, other bool }

func (x *index) find(s string, goldDocs map[int]bool, goldTexts []string) found {
	var f found
	for _, d := range x.docsWith(s) {
		if goldDocs[d] {
			f.gold = true
		} else {
			f.other = true
		}
	}
	for _, t := range goldTexts {
		if strings.Contains(t, s) {
			f.gold = true
		}
	}
	return f
}

func (w *Where) add(f found) {
	if f.gold {
		w.Gold++
	}
	if f.other {
		w.Other++
	}
	if f.gold || f.other {
		w.Any++
	}
}

// Scan computes the leakage report of ds.
func Scan(ds *datasets.Dataset, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Report{Dataset: ds.Name, Tasks: len(ds.Tasks), NearThreshold: cfg.NearThreshold}
	ids := make([]string, 0, len(ds.Corpora))
	for id := range ds.Corpora {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	indexes := map[string]*index{}
	for _, id := range ids {
		indexes[id] = newIndex(ds.Corpora[id])
	}
	for ti := range ds.Tasks {
		t := &ds.Tasks[ti]
		x := indexes[t.CorpusID]
		if x == nil {
			return nil, fmt.Errorf("leakage: %s: task %s: corpus %q not in the dataset", ds.Name, t.ID, t.CorpusID)
		}
		goldDocs, goldTexts, unresolved := x.gold(t)
		if unresolved {
			r.GoldUnresolved++
		}
		q := normalize(strings.ReplaceAll(t.Query, "\x00", " "))
		if q == "" {
			continue
		}
		r.Full.add(x.find(q, goldDocs, goldTexts))
		var sf found
		for _, s := range spans(q, cfg) {
			f := x.find(s, goldDocs, goldTexts)
			sf.gold = sf.gold || f.gold
			sf.other = sf.other || f.other
			if sf.gold && sf.other {
				break
			}
		}
		r.Span.add(sf)
		if sf.gold && len(r.GoldExamples) < 3 {
			r.GoldExamples = append(r.GoldExamples, t.ID)
		}
		if sf.other && len(r.OtherExamples) < 3 {
			r.OtherExamples = append(r.OtherExamples, t.ID)
		}
	}
	var errSum float64
	for _, id := range ids {
		d := duplicates(indexes[id].docs, cfg)
		r.Docs += len(indexes[id].docs)
		r.EmptyDocs += d.empty
		r.ExactDupDocs += d.exact
		r.NearDupPairs += d.nearPairs
		r.NearDupDocs += d.nearDocs
		r.CheckedPairs += d.checked
		errSum += d.errSum
		r.MaxAbsError = math.Max(r.MaxAbsError, d.maxErr)
	}
	if r.CheckedPairs > 0 {
		r.MeanAbsError = errSum / float64(r.CheckedPairs)
	}
	return r, nil
}

type dupStats struct {
	empty, exact, nearPairs, nearDocs, checked int
	errSum, maxErr                             float64
}

// shingles returns the hashed word shingles of a normalized text (the
// whole text as one shingle when it has fewer words than a shingle).
func shingles(text string, k int) []uint64 {
	w := strings.Split(text, " ")
	if text == "" {
		return nil
	}
	n := max(1, len(w)-k+1)
	set := make([]uint64, 0, n)
	for i := range n {
		h := fnv.New64a()
		h.Write([]byte(strings.Join(w[i:min(i+k, len(w))], " ")))
		set = append(set, h.Sum64())
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// mix is SplitMix64's finalizer: a bijection that spreads x ^ seed.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func signature(set []uint64, seeds []uint64) []uint64 {
	sig := make([]uint64, len(seeds))
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	for _, s := range set {
		for i, seed := range seeds {
			if h := mix(s ^ seed); h < sig[i] {
				sig[i] = h
			}
		}
	}
	return sig
}

func estimate(a, b []uint64) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// Jaccard is the exact Jaccard similarity of two sorted, duplicate-free
// sets.
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func duplicates(docs []string, cfg Config) dupStats {
	var st dupStats
	// Exact: equal normalized text; only the first copy goes on.
	seen := map[[32]byte]bool{}
	var uniq []int
	for i, d := range docs {
		if d == "" {
			st.empty++
			continue
		}
		h := sha256.Sum256([]byte(d))
		if seen[h] {
			st.exact++
			continue
		}
		seen[h] = true
		uniq = append(uniq, i)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	seeds := make([]uint64, cfg.NumHashes)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	sets := make([][]uint64, len(uniq))
	sigs := make([][]uint64, len(uniq))
	for k, i := range uniq {
		sets[k] = shingles(docs[i], cfg.Shingle)
		sigs[k] = signature(sets[k], seeds)
	}
	// Banding: documents agreeing on all rows of one band are candidates.
	rows := cfg.NumHashes / cfg.Bands
	cand := map[[2]int]bool{}
	for b := range cfg.Bands {
		buckets := map[uint64][]int{}
		for k, sig := range sigs {
			if len(sets[k]) == 0 {
				continue
			}
			h := uint64(b)
			for _, v := range sig[b*rows : (b+1)*rows] {
				h = mix(h ^ v)
			}
			buckets[h] = append(buckets[h], k)
		}
		for _, ks := range buckets {
			for i := 0; i < len(ks); i++ {
				for j := i + 1; j < len(ks); j++ {
					cand[[2]int{ks[i], ks[j]}] = true
				}
			}
		}
	}
	pairs := make([][2]int, 0, len(cand))
	for p := range cand {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	inNear := map[int]bool{}
	for _, p := range pairs {
		if estimate(sigs[p[0]], sigs[p[1]]) >= cfg.NearThreshold {
			st.nearPairs++
			inNear[p[0]], inNear[p[1]] = true, true
		}
	}
	st.nearDocs = len(inNear)
	// Check the estimate on a seeded sample of candidates.
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	for _, p := range pairs[:min(len(pairs), cfg.SampleSize)] {
		e := math.Abs(estimate(sigs[p[0]], sigs[p[1]]) - Jaccard(sets[p[0]], sets[p[1]]))
		st.checked++
		st.errSum += e
		st.maxErr = math.Max(st.maxErr, e)
	}
	return st
}

// SummaryLine measures ds with DefaultConfig and returns the one-line
// summary, for a dataset's summary.
func SummaryLine(ds *datasets.Dataset) (string, error) {
	r, err := Scan(ds, DefaultConfig())
	if err != nil {
		return "", err
	}
	return r.Summary(), nil
}
