package leakage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// bruteSpan is the reference for span leakage: it tries every contiguous
// token range of the query (not only the shortest ones) against the text
// with plain strings.Contains.
func bruteSpan(query, text string, cfg Config) bool {
	toks := strings.Fields(query)
	text = strings.Join(strings.Fields(text), " ")
	for i := range toks {
		for j := i + 1; j <= len(toks); j++ {
			s := strings.Join(toks[i:j], " ")
			if (j-i >= cfg.MinTokens || len(s) >= cfg.MinChars) && strings.Contains(text, s) {
				return true
			}
		}
	}
	return false
}

func TestMeasureQueries(t *testing.T) {
	long := "return the sum of all even numbers in the list of integers given"
	c := &corpus.Corpus{ID: "c", Docs: []corpus.Doc{
		{ID: "g1", Text: "def f(xs):\n    \"\"\"Return the sum of all even numbers\n    in the list of integers given.\"\"\"\n"},
		{ID: "d2", Text: "# copied: return the sum of all even numbers in the list of integers given\n"},
		{ID: "g3", Path: "a.py", Text: "nothing shared here at all"},
		{ID: "d4", Text: "x = averyveryveryveryveryveryveryveryveryverylongidentifiername_used_once(1)"},
	}}
	ds := &datasets.Dataset{Name: "toy", Corpora: map[string]*corpus.Corpus{"c": c}, Tasks: []datasets.Task{
		// Case changes break verbatim: "Return" in g1 vs "return"; the
		// span "the sum of all even numbers in the list" (9 tokens) is in
		// both g1 (across a line break) and d2.
		{ID: "t1", Query: long, CorpusID: "c", Gold: []datasets.Relevant{{Kind: "doc", ID: "g1", Grade: 1}}},
		// Short query found whole, but below both span thresholds.
		{ID: "t2", Query: "even  numbers", CorpusID: "c", Gold: []datasets.Relevant{{Kind: "file", ID: "a.py", Grade: 1}}},
		// One 70-character token: a span by characters, in d4, not in gold.
		{ID: "t3", Query: "averyveryveryveryveryveryveryveryveryverylongidentifiername_used_once", CorpusID: "c",
			Gold: []datasets.Relevant{{Kind: "needle", Body: "def g(): pass", Grade: 1}}},
		// A needle body holding the query.
		{ID: "t4", Query: "compute the rolling hash of the window in constant time please", CorpusID: "c",
			Gold: []datasets.Relevant{{Kind: "needle", Body: "def h():\n  # compute the rolling hash of the window in constant time please\n"}}},
		// Symbol gold cannot be compared.
		{ID: "t5", Query: "unrelated words only", CorpusID: "c", Gold: []datasets.Relevant{{Kind: "symbol", ID: "A.b"}}},
	}}
	cfg := DefaultConfig()
	r, err := Scan(ds, cfg)
	require.NoError(t, err)

	// Independent reference for the span counts.
	var want Where
	for _, tk := range ds.Tasks {
		var gold, other bool
		goldIDs := map[string]bool{}
		for _, g := range tk.Gold {
			switch g.Kind {
			case "doc":
				goldIDs[g.ID] = true
			case "file":
				for _, d := range c.Docs {
					if d.Path == g.ID {
						goldIDs[d.ID] = true
					}
				}
			case "needle":
				gold = gold || bruteSpan(tk.Query, g.Body, cfg)
			}
		}
		for _, d := range c.Docs {
			if bruteSpan(tk.Query, d.Text, cfg) {
				if goldIDs[d.ID] {
					gold = true
				} else {
					other = true
				}
			}
		}
		want.add(found{gold, other})
	}
	if diff := cmp.Diff(want, r.Span); diff != "" {
		t.Errorf("span counts against the brute-force reference (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Where{Gold: 2, Other: 2, Any: 3}, r.Span); diff != "" {
		t.Errorf("span counts (-want +got):\n%s\nt1 in gold and d2, t3 in d4, t4 in its needle", diff)
	}
	// Whole query: t1 only in d2 (g1 has "Return" and a trailing "."), t2
	// in g1 and d2 (not its gold a.py), t3 in d4, t4 in its needle.
	if diff := cmp.Diff(Where{Gold: 1, Other: 3, Any: 4}, r.Full); diff != "" {
		t.Errorf("full-query counts (-want +got):\n%s", diff)
	}
	if r.GoldUnresolved != 1 {
		t.Errorf("GoldUnresolved = %d, want 1 (t5's symbol)", r.GoldUnresolved)
	}
	if diff := cmp.Diff([]string{"t1", "t4"}, r.GoldExamples); diff != "" {
		t.Errorf("gold examples (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.Summary(), "query span verbatim in gold 2 (40.0%), elsewhere in corpus 2 (40.0%)") {
		t.Errorf("summary %q", r.Summary())
	}
}

func TestSpans(t *testing.T) {
	cfg := Config{MinTokens: 3, MinChars: 10}
	got := spans("a b c dddddddddddd e", cfg)
	want := []string{"a b c", "b c dddddddddddd", "c dddddddddddd", "dddddddddddd"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shortest spans (-want +got):\n%s\nthree tokens or ten characters, whichever comes first; none from \"e\"", diff)
	}
}

// words returns n distinct words from a seeded generator.
func words(rng *rand.Rand, n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", rng.IntN(1_000_000))
	}
	return w
}

func TestDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	base := words(rng, 400)
	near := append([]string(nil), base...)
	for i := 0; i < 8; i++ { // 8 substitutions: ~ 40 of 396 shingles change
		near[rng.IntN(len(near))] = "x" + fmt.Sprint(i)
	}
	far := words(rng, 400)
	c := &corpus.Corpus{ID: "c", Docs: []corpus.Doc{
		{ID: "a", Text: strings.Join(base, " ")},
		{ID: "a-copy", Text: strings.Join(base, "\n  ")}, // same text up to white space
		{ID: "a-near", Text: strings.Join(near, " ")},
		{ID: "b", Text: strings.Join(far, " ")},
		{ID: "empty", Text: "   "},
		{ID: "empty2", Text: ""},
	}}
	ds := &datasets.Dataset{Name: "dups", Corpora: map[string]*corpus.Corpus{"c": c}}
	cfg := DefaultConfig()
	r, err := Scan(ds, cfg)
	require.NoError(t, err)
	exact := Jaccard(shingles(normalize(c.Docs[0].Text), 5), shingles(normalize(c.Docs[2].Text), 5))
	if exact < cfg.NearThreshold || exact > 0.95 {
		t.Fatalf("test data: exact Jaccard of a and a-near is %.3f, want it in [0.8, 0.95]", exact)
	}
	if r.ExactDupDocs != 1 || r.EmptyDocs != 2 {
		t.Errorf("ExactDupDocs = %d, EmptyDocs = %d; want 1 (a-copy) and 2 (empty, empty2: not duplicates)", r.ExactDupDocs, r.EmptyDocs)
	}
	if r.NearDupPairs != 1 || r.NearDupDocs != 2 {
		t.Errorf("near duplicates: %d pairs over %d docs, want 1 pair (a, a-near) over 2", r.NearDupPairs, r.NearDupDocs)
	}
	if r.CheckedPairs < 1 || r.MaxAbsError > 0.15 {
		t.Errorf("MinHash check: %d pairs, max error %.3f; want ≥ 1 pair within 0.15 of exact Jaccard", r.CheckedPairs, r.MaxAbsError)
	}
	again, err := Scan(ds, cfg)
	require.NoError(t, err)
	if diff := cmp.Diff(r, again); diff != "" {
		t.Errorf("two runs with one seed differ:\n%s", diff)
	}
}

// TestMinHashAccuracy checks the estimator against exact Jaccard over
// pairs of every similarity: with 128 hashes the standard error is at most
// 0.044, so every estimate within 0.15 (3.4 σ) is expected.
func TestMinHashAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seeds := make([]uint64, 128)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	var worst float64
	for trial := range 50 {
		a := words(rng, 300)
		b := append([]string(nil), a...)
		for range trial * 6 {
			b[rng.IntN(len(b))] = fmt.Sprint("y", rng.IntN(1e6))
		}
		sa, sb := shingles(strings.Join(a, " "), 5), shingles(strings.Join(b, " "), 5)
		worst = math.Max(worst, math.Abs(estimate(signature(sa, seeds), signature(sb, seeds))-Jaccard(sa, sb)))
	}
	if worst > 0.15 {
		t.Errorf("worst MinHash error %.3f over 50 pairs, want ≤ 0.15", worst)
	}
}

func TestJaccard(t *testing.T) {
	for _, tc := range []struct {
		a, b []uint64
		want float64
	}{
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4}, 0.5},
		{[]uint64{1}, []uint64{2}, 0},
		{[]uint64{1, 5}, []uint64{1, 5}, 1},
		{nil, nil, 1},
		{nil, []uint64{1}, 0},
	} {
		if got := Jaccard(tc.a, tc.b); got != tc.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	bad := DefaultConfig()
	bad.NumHashes = 100 // not a multiple of 32 bands
	if _, err := Scan(&datasets.Dataset{}, bad); err == nil {
		t.Error("NumHashes 100 with 32 bands accepted")
	}
}
