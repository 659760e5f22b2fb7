// Package boardtest holds the constructed records and cells the
// leaderboard's tests build boards from, shared by package leaderboard's
// own tests and leaderboard/figtest (which draws real figures). It imports
// only resultfmt.
package boardtest

import (
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// System is a constructed system: its hit@1 per task is 1 when task i
// satisfies Hit(i), and its latency is Lat ms for every query.
type System struct {
	Model string
	Hit   func(i int) bool
	Lat   float64
}

// Records constructs n tasks of dataset ds for each system; ndcg@10 is
// hit@1 halved on odd tasks so the two measures differ.
func Records(ds, split string, n int, systems []System) []resultfmt.Record {
	var recs []resultfmt.Record
	for _, s := range systems {
		sys, cfg, _ := strings.Cut(s.Model, "/")
		for i := range n {
			h := 0.0
			if s.Hit(i) {
				h = 1
			}
			nd := h
			if i%2 == 1 {
				nd = h / 2
			}
			recs = append(recs, resultfmt.Record{Dataset: ds, Split: split, System: sys, Config: cfg,
				Task: fmt.Sprintf("t%03d", i), Repo: fmt.Sprintf("repo%d", i%3), Query: fmt.Sprintf("query %d", i),
				Values: map[string]float64{"hit@1": h, "ndcg@10": nd}, LatencyMS: s.Lat + float64(i%5),
				Hits: []resultfmt.Hit{{Rank: 1, DocID: "d", Grade: int(h), Judged: true}}})
		}
	}
	return recs
}

// Board is two datasets: on "alpha" bm25/code wins clearly over
// dense/small and barely over bm25/porter; "beta" has one system.
func Board() ([]resultfmt.Record, []resultfmt.Cell) {
	alpha := []System{
		{"bm25/code", func(i int) bool { return i%10 < 8 }, 2},
		{"bm25/porter", func(i int) bool { return i%10 < 8 && i != 3 }, 3},
		{"dense/small", func(i int) bool { return i%10 < 3 }, 40},
	}
	recs := Records("alpha", "small", 60, alpha)
	recs = append(recs, Records("beta", "all", 12, []System{{"bm25/code", func(i int) bool { return i%3 == 0 }, 1}})...)
	cells := []resultfmt.Cell{
		{Dataset: "alpha", Split: "small", System: "bm25", Config: "code", ConfigHash: "c1", DataHash: "d1", IndexSeconds: 1.25, IndexedDocs: 100, PeakRSSMB: 80},
		{Dataset: "alpha", Split: "small", System: "dense", Config: "small", ConfigHash: "c2", DataHash: "d1", IndexSeconds: 30.5, IndexedDocs: 100, PeakRSSMB: 310.5},
	}
	return recs, cells
}

// ModelBoard is Board with dense/small's model read from a folder and a
// fourth alpha system, dense/served, embedding through a server.
func ModelBoard() ([]resultfmt.Record, []resultfmt.Cell) {
	recs, cells := Board()
	recs = append(recs, Records("alpha", "small", 60, []System{{"dense/served", func(i int) bool { return i%10 < 5 }, 9}})...)
	cells[1].Models = []resultfmt.CellModel{{ID: "small", Source: "folder", Dimension: 384, Parameters: 22_565_376, Engine: "in-process"}}
	cells = append(cells, resultfmt.Cell{Dataset: "alpha", Split: "small", System: "dense", Config: "served", IndexSeconds: 3,
		Models: []resultfmt.CellModel{{ID: "served", Source: "endpoint", Dimension: 1024, Engine: "server", Served: "Qwen/Qwen3-Embedding-0.6B@c54f2e6"}}})
	return recs, cells
}

// LangRecords are the records of system model on dataset ds: one task per
// value (ndcg@10 and hit@1 the value); fail marks every task failed.
func LangRecords(ds, model string, values []float64, fail bool) []resultfmt.Record {
	sys, cfg, _ := strings.Cut(model, "/")
	var recs []resultfmt.Record
	for i, v := range values {
		r := resultfmt.Record{Dataset: ds, Split: "small", System: sys, Config: cfg, Task: fmt.Sprintf("t%02d", i),
			Values: map[string]float64{"ndcg@10": v, "hit@1": v}, LatencyMS: 1}
		if fail {
			r.Values, r.Error, r.LatencyMS = map[string]float64{}, "model file missing", 0
		}
		recs = append(recs, r)
	}
	return recs
}

// Languages: python (4 tasks), go (2), rust (5) of the RepoQA family, and
// an unrelated dataset; cpp, java and typescript are absent. bm25/a runs
// everywhere, dense/b has no rust cell, dense/c failed every go task.
func Languages() []resultfmt.Record {
	var recs []resultfmt.Record
	add := func(ds, model string, vs []float64, fail bool) {
		recs = append(recs, LangRecords(ds, model, vs, fail)...)
	}
	add("repoqa-python-docstring", "bm25/a", []float64{1, 0.5, 0, 0.5}, false) // mean 0.5
	add("repoqa-go-doc", "bm25/a", []float64{1, 1}, false)                     // 1.0
	add("repoqa-rust-doc", "bm25/a", []float64{0, 0, 1, 0, 0.5}, false)        // 0.3
	add("repoqa-python-docstring", "dense/b", []float64{1, 1, 1, 0}, false)    // 0.75
	add("repoqa-go-doc", "dense/b", []float64{0, 1}, false)                    // 0.5
	add("repoqa-python-docstring", "dense/c", []float64{0, 0, 0, 1}, false)    // 0.25
	add("repoqa-go-doc", "dense/c", []float64{0, 0}, true)
	add("repoqa-rust-doc", "dense/c", []float64{1, 1, 1, 1, 1}, false) // 1.0
	add("vaswani", "bm25/a", []float64{1, 0}, false)
	return recs
}
