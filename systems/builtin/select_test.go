package builtin

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/graph"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
)

func names(specs []systems.Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name())
	}
	return out
}

// TestSelect resolves every form of the selection language to the systems
// it names, in the order given.
func TestSelect(t *testing.T) {
	// One form the caller adds: "peer" stands for an external system.
	peer := systems.Spec{System: "peer", Config: "x", Hash: "peer-v1", New: func(systems.Options) (systems.System, error) { return nil, nil }}
	sel := Selector{Specs: Specs(), Other: func(item string) (systems.Spec, bool, error) {
		switch item {
		case "peer.json":
			return peer, true, nil
		case "broken.json":
			return systems.Spec{}, false, errors.New("broken.json:3: bad JSON")
		}
		return systems.Spec{}, false, nil
	}}
	var bm25All []string
	for _, c := range bm25.Configs() {
		bm25All = append(bm25All, "bm25/"+c.Name)
	}
	var hybridAll []string
	for _, c := range hybrid.Configs() {
		hybridAll = append(hybridAll, "hybrid/"+c.Name)
	}
	for _, tc := range []struct {
		name, list string
		want       []string
		reason     string
	}{
		{"names", "bm25/porter, bm25/code-weighted,graph/bm25code-1hop", []string{"bm25/porter", "bm25/code-weighted", "graph/bm25code-1hop"}, "built-in names, in the order given, spaces ignored"},
		{"system all", "bm25/all", bm25All, "every BM25 config, in Configs order"},
		{"hybrid all", "hybrid/all", hybridAll, "every built-in fusion"},
		{"twice", "bm25/porter,bm25/all", append([]string{"bm25/porter"}, "bm25/unicode61", "bm25/code", "bm25/code-weighted"), "a system chosen twice runs once, at its first place"},
		{"other", "peer.json,bm25/code", []string{"peer/x", "bm25/code"}, "the caller's own form"},
		{"rrf", "rrf(bm25/porter,bm25/code)", []string{"hybrid/rrf_bm25-porter_bm25-code"}, "a fusion named after its members"},
		{"rrf named", "rrf(bm25/porter, peer.json, k=30, name=mine)", []string{"hybrid/mine"}, "a fusion of a built-in and an external system, named"},
		{"weighted", "weighted(bm25/porter=0.3,dense/minilm-l6-q=0.7)", []string{"hybrid/weighted_bm25-porter_dense-minilm-l6-q"}, "weights per member"},
		{"graph", "graph(bm25/porter,seeds=5)", []string{"graph/bm25-porter-1hop"}, "a graph of any base"},
		{"nested", "graph(rrf(bm25/porter,hybrid/rrf-bm25code-bge),name=deep)", []string{"graph/deep"}, "a graph of a fusion that fuses a built-in fusion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sel.Select(tc.list)
			require.NoError(t, err, tc.reason)
			require.Equal(t, tc.want, names(got), tc.reason)
			for _, s := range got {
				require.NoError(t, s.Validate(), "%s: %s", tc.reason, s.Name())
			}
		})
	}
	t.Run("all", func(t *testing.T) {
		got, err := sel.Select("all")
		require.NoError(t, err)
		require.Equal(t, names(Specs()), names(got), "every built-in config")
	})

	// What an expression builds: the members, weights and options given.
	t.Run("values", func(t *testing.T) {
		sel := sel
		got, err := sel.Select("weighted(bm25/porter=0.25,bm25/code=2,depth=40,name=w),graph(peer.json,seeds=3,decay=0.5,max_neighbors=4,max_candidates=0),rrf(bm25/porter,bm25/code=2,k=7)")
		require.NoError(t, err)
		require.Len(t, got, 3)
		w := hybrid.Config{Name: "w", Method: hybrid.MethodWeighted, Depth: 40, Members: []hybrid.Member{
			{Spec: mustFind(t, "bm25/porter"), Weight: 0.25}, {Spec: mustFind(t, "bm25/code"), Weight: 2}}}
		require.Equal(t, hybrid.Spec(w).Hash, got[0].Hash, "the weighted fusion as written")
		g := graph.Config{Name: "peer-x-1hop", Base: peer, Seeds: 3, Decay: 0.5, MaxNeighbors: 4, MaxCandidates: 0}
		require.Equal(t, graph.Spec(g).Hash, got[1].Hash, "the graph as written")
		r := hybrid.Config{Name: "rrf_bm25-porter_bm25-code", Method: hybrid.MethodRRF, K: 7, Depth: hybrid.DefaultDepth, Members: []hybrid.Member{
			{Spec: mustFind(t, "bm25/porter"), Weight: 1}, {Spec: mustFind(t, "bm25/code"), Weight: 2}}}
		require.Equal(t, hybrid.Spec(r).Hash, got[2].Hash, "rrf: default weight 1, k as given")
		d := r
		d.K, d.Name = hybrid.DefaultK, "rrf_bm25-porter_bm25-code"
		got2, err := sel.Select("rrf(bm25/porter,bm25/code=2)")
		require.NoError(t, err)
		require.Equal(t, hybrid.Spec(d).Hash, got2[0].Hash, "rrf's default k")
	})

	for _, tc := range []struct {
		name, list string
		want       []string
		reason     string
	}{
		{"unknown config", "bm25/porterr", []string{`no system "bm25/porterr"`, "bm25 has unicode61, porter, code, code-weighted"}, "a bad config lists the system's configs"},
		{"unknown system", "lucene/x", []string{`no system "lucene/x"`, "systems: bm25, dense, static, hybrid, graph"}, "a bad system lists the systems"},
		{"unknown model", "dense/gpt-9", []string{"dense has minilm-l6-q"}, "dense lists the models"},
		{"caller's error", "bm25/code,broken.json", []string{"broken.json:3: bad JSON"}, "the caller's error as it is"},
		{"one member", "rrf(bm25/porter)", []string{"1 members: want at least 2"}, "a fusion needs two members"},
		{"all in a fusion", "rrf(bm25/all,bm25/code)", []string{`"bm25/all" selects several systems`}, "a member is one system"},
		{"bad weight", "weighted(bm25/porter=x,bm25/code)", []string{`weight "x" is not a number`, "options of weighted: depth, name"}, "a weight is a number"},
		{"graph weight", "graph(bm25/porter=2)", []string{"a graph takes no weight"}, "a graph has one base, no weights"},
		{"graph two", "graph(bm25/porter,bm25/code)", []string{"a graph expands one system, not 2"}, "a graph has one base"},
		{"bad option", "graph(bm25/porter,seeds=many)", []string{"seeds=many: not an integer"}, "integer options"},
		{"bad decay", "graph(bm25/porter,decay=2)", []string{"decay 2: want 0 < decay <= 1"}, "the config's own validation"},
		{"option twice", "rrf(bm25/porter,bm25/code,k=1,k=2)", []string{"k= given twice"}, "one value per option"},
		{"unknown function", "sum(bm25/porter,bm25/code)", []string{`unknown function "sum"`}, "three functions"},
		{"unbalanced", "rrf(bm25/porter,bm25/code", []string{"unbalanced '('"}, "parentheses"},
		{"same name", "rrf(bm25/porter,bm25/code),rrf(bm25/porter,bm25/code,k=5)", []string{"two different systems are named hybrid/rrf_bm25-porter_bm25-code", "name="}, "two systems of one name need names"},
		{"bad name", "rrf(bm25/porter,bm25/code,name=My Fusion)", []string{`name "My Fusion"`}, "a name becomes a subtest name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sel.Select(tc.list)
			require.Error(t, err, tc.reason)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w, tc.reason)
			}
		})
	}
}

func mustFind(t *testing.T, name string) systems.Spec {
	t.Helper()
	s, ok := Find(Specs(), name)
	require.True(t, ok, name)
	return s
}

// TestSelectionHelp: every form the help text shows is one Select takes.
func TestSelectionHelp(t *testing.T) {
	sel := Selector{Specs: Specs()}
	for _, example := range []string{"bm25/porter", "dense/bge-small-q", "hybrid/rrf-bm25code-bge", "graph/bm25code-1hop", "bm25/all", "hybrid/all", "all",
		"rrf(bm25/porter,bm25/code,k=60,depth=100,name=n)", "weighted(bm25/porter=1,bm25/code=2,depth=100,name=n)",
		"graph(bm25/porter,seeds=10,decay=0.9,max_neighbors=0,max_candidates=1,name=n)"} {
		_, err := sel.Select(example)
		require.NoError(t, err, example)
	}
	for _, form := range []string{"system/config", "system/all", "all", "FILE.json", "DIR", "rrf(", "weighted(", "graph(", "k=", "depth=", "name=", "seeds=", "decay=", "max_neighbors=", "max_candidates=", "M=W"} {
		if !strings.Contains(SelectionHelp, form) {
			t.Errorf("SelectionHelp lacks %q", form)
		}
	}
}
