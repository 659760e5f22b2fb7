// Package figtest tests the leaderboard with its real figures
// (report/plots). The tests live apart from package leaderboard's so that
// a module importing the leaderboard (cmd/rbench) gets no plotting library
// in its go.sum: go mod tidy keeps the checksums of its dependencies'
// tests' imports too.
package figtest

import (
	"bytes"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/leaderboard"
	"github.com/retrievalbench/retrievalbench/leaderboard/boardtest"
	"github.com/retrievalbench/retrievalbench/report/plots"
)

// The constructed boards (package boardtest).
var fixtureBoard = boardtest.Board

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
