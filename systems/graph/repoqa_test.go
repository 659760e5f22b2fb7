package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestStructuralEdges checks the graph against an independent call graph:
// each row of the seed harness's structural split names a function and a
// 1-hop neighbour of it found by its own AST analysis. The chunk of the
// function must link (as callee or caller) to the chunk holding the
// neighbour's source.
func TestStructuralEdges(t *testing.T) {
	testenv.MustHaveData(t, repoqa.CorporaFile)
	file := testenv.MustHaveData(t, "pydocs-eval/structural_recall.json")
	dir, _ := testenv.DataDir()
	rows, err := repoqa.ReadStructural(file)
	require.NoError(t, err)
	ds, err := repoqa.Structural(dir, "all", repoqa.DefaultConfig())
	require.NoError(t, err)

	chunked := map[string]*corpus.Corpus{}
	graphs := map[string]*Graph{}
	linked, degree := 0, 0
	for _, r := range rows {
		g, c := graphs[r.Repo], chunked[r.Repo]
		if g == nil {
			raw, ok := ds.Corpora[r.Repo]
			require.True(t, ok, "corpus %s", r.Repo)
			c, _, err = chunk.Corpus(raw, chunk.DefaultOptions())
			require.NoError(t, err)
			g = Build(c, DefaultMaxCandidates)
			graphs[r.Repo], chunked[r.Repo] = g, c
		}
		name := r.SeedQName[strings.LastIndexByte(r.SeedQName, '.')+1:]
		m := codetext.NewMatcher(codetext.Python, r.GoldASTBody)
		var seed string
		gold := map[string]bool{}
		for _, d := range c.Docs {
			if d.Path == r.NeedlePath && (d.Symbol == name || strings.HasSuffix(d.Symbol, "."+name)) {
				seed = d.ID
			}
			if m.Match(d.Text) {
				gold[d.ID] = true
			}
		}
		if seed == "" || len(gold) == 0 {
			t.Errorf("%s: no chunk for the seed %s (%q) or the gold %s", r.Repo, r.SeedQName, seed, r.GoldQName)
			continue
		}
		found := false
		ns := append(g.Callees(seed), g.Callers(seed)...)
		degree += len(ns)
		for _, n := range ns {
			found = found || gold[n]
		}
		if found {
			linked++
		} else {
			t.Errorf("%s: %s does not link to its %s %s", r.Repo, seed, r.GoldKind, r.GoldQName)
		}
	}
	t.Logf("%d of %d seed functions link to their structural neighbour; %.1f neighbours per seed on average", linked, len(rows), float64(degree)/float64(len(rows)))
}
