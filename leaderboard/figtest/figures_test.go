// Package figtest tests the leaderboard with its real figures
// (report/plots). The tests live apart from package leaderboard's so that
// a module importing the leaderboard (cmd/rbench) gets no plotting library
// in its go.sum: go mod tidy keeps the checksums of its dependencies'
// tests' imports too.
package figtest

import (
	"bytes"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/leaderboard"
	"github.com/retrievalbench/retrievalbench/report/plots"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// system is a constructed system: its hit@1 per task is 1 when task i
// satisfies hit(i), and its latency is lat ms for every query.
type system struct {
	model string
	hit   func(i int) bool
	lat   float64
}

// records constructs n tasks of dataset ds for each system; ndcg@10 is
// hit@1 halved on odd tasks so the two measures differ.
func records(ds, split string, n int, systems []system) []resultfmt.Record {
	var recs []resultfmt.Record
	for _, s := range systems {
		sys, cfg, _ := strings.Cut(s.model, "/")
		for i := range n {
			h := 0.0
			if s.hit(i) {
				h = 1
			}
			nd := h
			if i%2 == 1 {
				nd = h / 2
			}
			recs = append(recs, resultfmt.Record{Dataset: ds, Split: split, System: sys, Config: cfg,
				Task: fmt.Sprintf("t%03d", i), Repo: fmt.Sprintf("repo%d", i%3), Query: fmt.Sprintf("query %d", i),
				Values: map[string]float64{"hit@1": h, "ndcg@10": nd}, LatencyMS: s.lat + float64(i%5),
				Hits: []resultfmt.Hit{{Rank: 1, DocID: "d", Grade: int(h), Judged: true}}})
		}
	}
	return recs
}

// fixtureBoard is package leaderboard's test board: two datasets; on
// "alpha" bm25/code wins clearly over dense/small and barely over
// bm25/porter; "beta" has one system.
func fixtureBoard() ([]resultfmt.Record, []resultfmt.Cell) {
	alpha := []system{
		{"bm25/code", func(i int) bool { return i%10 < 8 }, 2},
		{"bm25/porter", func(i int) bool { return i%10 < 8 && i != 3 }, 3},
		{"dense/small", func(i int) bool { return i%10 < 3 }, 40},
	}
	recs := records("alpha", "small", 60, alpha)
	recs = append(recs, records("beta", "all", 12, []system{{"bm25/code", func(i int) bool { return i%3 == 0 }, 1}})...)
	cells := []resultfmt.Cell{
		{Dataset: "alpha", Split: "small", System: "bm25", Config: "code", ConfigHash: "c1", DataHash: "d1", IndexSeconds: 1.25, IndexedDocs: 100, PeakRSSMB: 80},
		{Dataset: "alpha", Split: "small", System: "dense", Config: "small", ConfigHash: "c2", DataHash: "d1", IndexSeconds: 30.5, IndexedDocs: 100, PeakRSSMB: 310.5},
	}
	return recs, cells
}

// TestWriteFigures writes the board twice with report/plots' figures: the
// same bytes both times, every figure an SVG and a PNG that decodes, and
// index.html embedding each SVG.
func TestWriteFigures(t *testing.T) {
	recs, cells := fixtureBoard()
	var trees []map[string][]byte
	for range 2 {
		b, err := leaderboard.Build(recs, cells, leaderboard.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := leaderboard.Write(dir, b, plots.Write); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)], err = os.ReadFile(p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, files)
	}
	a, b := trees[0], trees[1]
	if len(a) != len(b) {
		t.Errorf("runs wrote %d and %d files", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two runs on the same records", name)
		}
	}
	figures := 0
	for _, d := range []string{"alpha.small", "beta.all"} {
		for _, f := range []string{"pareto", "timing", "score-ndcg-10", "score-hit-1"} {
			svg, p := a[d+"/plots/"+f+".svg"], a[d+"/plots/"+f+".png"]
			if !bytes.Contains(svg, []byte("<svg")) {
				t.Errorf("%s/plots/%s.svg is not an SVG", d, f)
			}
			if _, err := png.DecodeConfig(bytes.NewReader(p)); err != nil {
				t.Errorf("%s/plots/%s.png: %v", d, f, err)
			}
			figures++
		}
	}
	if got := strings.Count(string(a["index.html"]), `<img alt=`); got != figures {
		t.Errorf("index.html embeds %d figures, want %d", got, figures)
	}
}
