package hybrid

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

func hits(pairs ...any) []systems.Hit {
	var out []systems.Hit
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, systems.Hit{DocID: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return out
}

var approx = cmpopts.EquateApprox(0, 1e-12)

func TestRRF(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reason  string
		lists   [][]systems.Hit
		weights []float64
		k       int
		want    []systems.Hit
	}{{
		name:   "two-lists",
		reason: "a: 1/61+1/62, c: 1/63+1/61, b: 1/62, d: 1/63 — scores are ignored, only ranks count",
		lists: [][]systems.Hit{
			hits("a", 9.0, "b", 8.0, "c", 0.1),
			hits("c", 0.9, "a", 0.8, "d", 0.7),
		},
		weights: []float64{1, 1}, k: 60,
		want: hits("a", 1.0/61+1.0/62, "c", 1.0/63+1.0/61, "b", 1.0/62, "d", 1.0/63),
	}, {
		name:   "tie-by-doc-id",
		reason: "z and y each have ranks 1 and 2: equal scores order by doc ID ascending",
		lists: [][]systems.Hit{
			hits("z", 1.0, "y", 0.5),
			hits("y", 1.0, "z", 0.5),
		},
		weights: []float64{1, 1}, k: 60,
		want: hits("y", 1.0/61+1.0/62, "z", 1.0/61+1.0/62),
	}, {
		name:   "weights-and-small-k",
		reason: "k=1, weights 2 and 0.5: a = 2/(1+1); b = 2/(1+2) + 0.5/(1+1)",
		lists: [][]systems.Hit{
			hits("a", 5.0, "b", 4.0),
			hits("b", 5.0),
		},
		weights: []float64{2, 0.5}, k: 1,
		want: hits("a", 1.0, "b", 2.0/3+0.5/2),
	}, {
		name:   "zero-weight",
		reason: "a member of weight 0 adds its docs at score 0, below every doc of the others",
		lists: [][]systems.Hit{
			hits("a", 1.0),
			hits("b", 1.0),
		},
		weights: []float64{1, 0}, k: 60,
		want: hits("a", 1.0/61, "b", 0.0),
	}, {
		name:   "duplicate-in-list",
		reason: "a doc listed twice in one list counts once, at its best rank",
		lists: [][]systems.Hit{
			hits("a", 3.0, "a", 2.0, "b", 1.0),
			nil,
		},
		weights: []float64{1, 1}, k: 60,
		want: hits("a", 1.0/61, "b", 1.0/63),
	}, {
		name:    "empty",
		reason:  "no hits anywhere fuse to nothing",
		lists:   [][]systems.Hit{nil, nil},
		weights: []float64{1, 1}, k: 60,
		want: []systems.Hit{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := RRF(tc.lists, tc.weights, tc.k)
			if diff := cmp.Diff(tc.want, got, approx); diff != "" {
				t.Errorf("%s\nRRF (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWeighted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reason  string
		lists   [][]systems.Hit
		weights []float64
		want    []systems.Hit
	}{{
		name:   "two-lists",
		reason: "first list 10,6,2 → 1,.5,0; second .9,.5,.1 → 1,.5,0; weights .7/.3; a missing doc gets 0 from that list",
		lists: [][]systems.Hit{
			hits("a", 10.0, "b", 6.0, "c", 2.0),
			hits("c", 0.9, "d", 0.5, "a", 0.1),
		},
		weights: []float64{0.7, 0.3},
		want:    hits("a", 0.7, "b", 0.35, "c", 0.3, "d", 0.15),
	}, {
		name:   "negative-scores",
		reason: "min-max works on any scale: -1,-3 → 1,0",
		lists: [][]systems.Hit{
			hits("a", -1.0, "b", -3.0),
			hits("b", 0.2, "a", 0.1),
		},
		weights: []float64{1, 1},
		want:    hits("a", 1.0, "b", 1.0),
	}, {
		name:   "single-hit-and-ties",
		reason: "a list of one hit, or of equal scores, normalises every hit to 1",
		lists: [][]systems.Hit{
			hits("x", 3.5),
			hits("y", 0.4, "z", 0.4),
		},
		weights: []float64{1, 2},
		want:    hits("y", 2.0, "z", 2.0, "x", 1.0),
	}, {
		name:   "empty-member",
		reason: "a member with no hits adds nothing",
		lists: [][]systems.Hit{
			hits("a", 2.0, "b", 1.0, "c", 0.0),
			nil,
		},
		weights: []float64{0.5, 0.5},
		want:    hits("a", 0.5, "b", 0.25, "c", 0.0),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := Weighted(tc.lists, tc.weights)
			if diff := cmp.Diff(tc.want, got, approx); diff != "" {
				t.Errorf("%s\nWeighted (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSearchDepthAndCut(t *testing.T) {
	a := &systemstest.Script{Hits: hits("a", 3.0, "b", 2.0, "c", 1.0)}
	b := &systemstest.Script{Hits: hits("c", 3.0, "d", 2.0, "e", 1.0)}
	cfg := Config{Name: "t", Method: MethodRRF, K: 60, Depth: 2,
		Members: []Member{{Spec: systems.Spec{System: "a", Config: "x"}, Weight: 1}, {Spec: systems.Spec{System: "b", Config: "x"}, Weight: 1}}}
	x, err := NewWithMembers(cfg, []systems.System{a, b})
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), &corpus.Corpus{ID: "c"}))
	if a.Indexed != 1 || b.Indexed != 1 {
		t.Errorf("Index reached members %d and %d times, want 1 each", a.Indexed, b.Indexed)
	}

	got, err := x.Search(t.Context(), "q", 1)
	require.NoError(t, err)
	// Depth 2: c is second in b's list only (a's third hit is cut), so
	// a (1/61) beats c (1/62) though c is in both full lists.
	if diff := cmp.Diff(hits("a", 1.0/61), got, approx); diff != "" {
		t.Errorf("Search k=1 (-want +got):\n%s", diff)
	}
	got, err = x.Search(t.Context(), "q", 3)
	require.NoError(t, err)
	want := hits("c", 1.0/61+1.0/63, "a", 1.0/61, "b", 1.0/62)
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("Search k=3 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 3}, a.Depths); diff != "" {
		t.Errorf("depths asked of a member: max(Depth, k) (-want +got):\n%s", diff)
	}
	if got, err := x.Search(t.Context(), "q", 0); err != nil || len(got) != 0 {
		t.Errorf("k=0: %v, %v; want no hits", got, err)
	}

	a.CloseErr = errors.New("boom")
	if err := x.Close(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Close = %v, want the member's error", err)
	}
	if !a.Closed || !b.Closed {
		t.Error("Close did not close every member despite an error")
	}
}

func TestConfigs(t *testing.T) {
	seen := map[string]bool{}
	hashes := map[string]string{}
	for _, c := range Configs() {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if seen[c.Name] {
			t.Errorf("duplicate config name %s", c.Name)
		}
		seen[c.Name] = true
		h := c.Hash()
		if other, ok := hashes[h]; ok {
			t.Errorf("%s and %s hash the same", c.Name, other)
		}
		hashes[h] = c.Name
		got, err := ConfigByName(c.Name)
		require.NoError(t, err)
		if diff := cmp.Diff(c, got, cmpopts.IgnoreFields(systems.Spec{}, "Requires", "New")); diff != "" {
			t.Errorf("ConfigByName(%s) (-want +got):\n%s", c.Name, diff)
		}
	}
	if _, err := ConfigByName("nope"); err == nil {
		t.Error("ConfigByName accepted an unknown name")
	}
}

// pinnedHashes are the config hashes recorded in the committed golden files
// (golden/*/*/hybrid/*.json): a change to the hash function, a member's hash
// or a default makes every hybrid baseline stale, so it must be deliberate.
var pinnedHashes = map[string]string{
	"rrf-bm25code-minilm":      "79daa9862e0f64be609da6d3d3faf34a11bc6b0c41f7f936d554de2569069972",
	"rrf-bm25code-bge":         "36e4ab414e8e6e48cd74f71e65b3304285606b9fa0221961e1cf57f2b25b867e",
	"weighted-bm25code-minilm": "18785319336e207e5fe6d61446d2a5538f04462d2a7cfae51aa6f200e1f7e136",
	"weighted-bm25code-bge":    "060d799a558d418a53fba389dd17c577798a5f268bf677aa783e2fa4338d0235",
}

func TestHash(t *testing.T) {
	for _, c := range Configs() {
		if want, ok := pinnedHashes[c.Name]; !ok {
			t.Errorf("%s: no pinned hash (add the one its golden files record)", c.Name)
		} else if got := c.Hash(); got != want {
			t.Errorf("%s: Hash = %s, want the golden files' %s", c.Name, got, want)
		}
	}
	base := Configs()[0]
	porter, err := bm25.ConfigByName("porter")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		reason string
		edit   func(c *Config)
	}{
		{"method", "weighted and rrf rank differently", func(c *Config) { c.Method = MethodWeighted }},
		{"k", "k changes rrf scores", func(c *Config) { c.K = 10 }},
		{"depth", "depth decides which docs count as missing", func(c *Config) { c.Depth = 50 }},
		{"weight", "weights change the fusion", func(c *Config) { c.Members[0].Weight = 2 }},
		{"member-config", "another member config is another system", func(c *Config) { c.Members[0].Spec = bm25.Spec(porter) }},
		{"member-hash", "a member whose config changed is another system", func(c *Config) { c.Members[0].Spec.Hash = "other" }},
		{"member-order", "ties and weights follow the members", func(c *Config) { c.Members[0], c.Members[1] = c.Members[1], c.Members[0] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Members = append([]Member(nil), base.Members...)
			tc.edit(&c)
			if c.Hash() == base.Hash() {
				t.Errorf("%s: hash unchanged", tc.reason)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := Configs()[0]
	for _, tc := range []struct {
		name   string
		reason string
		edit   func(c *Config)
		want   string
	}{
		{"empty-name", "names subtests and files", func(c *Config) { c.Name = "" }, "empty name"},
		{"bad-name", "slashes would break golden paths", func(c *Config) { c.Name = "a/b" }, "only a-z"},
		{"method", "unknown fusion", func(c *Config) { c.Method = "max" }, "method"},
		{"k", "rrf needs k >= 1", func(c *Config) { c.K = 0 }, "rrf k"},
		{"depth", "members must be asked for something", func(c *Config) { c.Depth = 0 }, "depth"},
		{"one-member", "fusion of one list is that list", func(c *Config) { c.Members = c.Members[:1] }, "at least 2"},
		{"negative-weight", "a negative weight inverts a ranking", func(c *Config) { c.Members[0].Weight = -1 }, "weight"},
		{"zero-weights", "nothing would be ranked", func(c *Config) { c.Members[0].Weight, c.Members[1].Weight = 0, 0 }, "all member weights"},
		{"duplicate", "the same member twice is a weight, not a fusion", func(c *Config) { c.Members[1] = c.Members[0] }, "twice"},
		{"no-constructor", "a member must be buildable", func(c *Config) { c.Members[0].Spec.New = nil }, "no constructor"},
		{"no-hash", "a member without a config hash would make baselines blind to its changes", func(c *Config) { c.Members[1].Spec.Hash = "" }, "no config hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			c.Members = append([]Member(nil), ok.Members...)
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: Validate = %v, want ErrInvalidConfig mentioning %q", tc.reason, err, tc.want)
			}
			if _, err := New(c, systems.Options{}); err == nil {
				t.Errorf("New accepted the invalid config")
			}
		})
	}
}

func ExampleRRF() {
	bm25 := []systems.Hit{{DocID: "parse.go#Parse", Score: 12.1}, {DocID: "lex.go#Next", Score: 7.3}}
	dense := []systems.Hit{{DocID: "lex.go#Next", Score: 0.81}, {DocID: "ast.go#Walk", Score: 0.80}}
	for _, h := range RRF([][]systems.Hit{bm25, dense}, []float64{1, 1}, DefaultK) {
		fmt.Printf("%-15s %.5f\n", h.DocID, h.Score)
	}
	// Output:
	// lex.go#Next     0.03252
	// parse.go#Parse  0.01639
	// ast.go#Walk     0.01613
}

// TestFusesAnySpec fuses two systems that are not built-in configs (a
// user's or an external one is just a Spec): New builds them through their
// Specs, and the hash follows each member's own config hash.
func TestFusesAnySpec(t *testing.T) {
	a := &systemstest.Script{Hits: hits("x", 2.0, "y", 1.0)}
	b := &systemstest.Script{Hits: hits("y", 2.0, "z", 1.0)}
	spec := func(name string, s *systemstest.Script) systems.Spec {
		return systems.Spec{System: "mine", Config: name, Hash: "mine-" + name,
			New: func(systems.Options) (systems.System, error) { return s, nil }}
	}
	cfg := Config{Name: "mine", Method: MethodRRF, K: 60, Depth: 10,
		Members: []Member{{Spec: spec("a", a), Weight: 1}, {Spec: spec("b", b), Weight: 1}}}
	x, err := New(cfg, systems.Options{})
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), &corpus.Corpus{ID: "c"}))
	got, err := x.Search(t.Context(), "q", 1)
	require.NoError(t, err)
	if len(got) != 1 || got[0].DocID != "y" {
		t.Errorf("Search = %v, want y (in both lists) first", got)
	}
	other := cfg
	other.Members = []Member{{Spec: spec("a", a), Weight: 1}, {Spec: spec("b", b), Weight: 1}}
	other.Members[1].Spec.Hash = "mine-b-v2"
	if other.Hash() == cfg.Hash() {
		t.Error("a member's config hash does not reach the fusion's hash")
	}
	s := Spec(cfg)
	if s.Bench.Tolerance != 0 || s.Bench.Heavy || s.Bench.MaxDocs != 0 {
		t.Errorf("Spec of deterministic light members: tolerance %v heavy %v max docs %d", s.Bench.Tolerance, s.Bench.Heavy, s.Bench.MaxDocs)
	}
	// A fusion indexes every member: it is held to its smallest budget.
	slow := cfg
	slow.Members = []Member{{Spec: spec("a", a), Weight: 1}, {Spec: spec("b", b), Weight: 1}, {Spec: spec("c", a), Weight: 1}}
	slow.Members[1].Spec.Bench.MaxDocs, slow.Members[1].Spec.Bench.MaxDocsReason = 5000, "slow"
	slow.Members[2].Spec.Bench.MaxDocs, slow.Members[2].Spec.Bench.MaxDocsReason = 800, "slower"
	if s := Spec(slow); s.Bench.MaxDocs != 800 || s.Bench.MaxDocsReason != "fuses mine/c: slower" {
		t.Errorf("Spec of members with budgets 0, 5000, 800: MaxDocs %d (%q), want 800 (fuses mine/c: slower)", s.Bench.MaxDocs, s.Bench.MaxDocsReason)
	}
}

// TestForwardsFactsAndPeak: a fusion hands the task's facts to the member
// that takes them and the text to the one that does not, and reports the
// processes' peak RSS of its members after Close, when the harness asks.
func TestForwardsFactsAndPeak(t *testing.T) {
	plain := &systemstest.Script{Hits: hits("a", 1.0)}
	ext := &systemstest.Factful{Script: systemstest.Script{Hits: hits("b", 1.0)}, Peak: 300 << 20}
	ext2 := &systemstest.Factful{Script: systemstest.Script{Hits: hits("c", 1.0)}, Peak: 500 << 20, AtClose: 100 << 20}
	m := func(n string) Member { return Member{Spec: systems.Spec{System: n, Config: "x"}, Weight: 1} }
	cfg := Config{Name: "t", Method: MethodRRF, K: 60, Depth: 3, Members: []Member{m("a"), m("b"), m("c")}}
	x, err := NewWithMembers(cfg, []systems.System{plain, ext, ext2})
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), &corpus.Corpus{ID: "c"}))

	q := systems.Query{Text: "read a frame", Library: "pandas", Repo: "pandas-dev/pandas"}
	got, err := systems.SearchQuery(t.Context(), x, q, 3)
	require.NoError(t, err)
	require.Len(t, got, 3, "every member's hit is fused")
	_, err = x.Search(t.Context(), "plain text", 3)
	require.NoError(t, err)
	want := []systems.Query{q, {Text: "plain text"}}
	if diff := cmp.Diff(want, ext.Queries); diff != "" {
		t.Errorf("queries the fact-taking member got (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3}, plain.Depths); diff != "" {
		t.Errorf("the plain member is asked by text (-want +got):\n%s", diff)
	}

	if got := x.PeakRSS(); got != 500<<20 {
		t.Errorf("PeakRSS = %d MiB, want the largest member's, 500", got>>20)
	}
	require.NoError(t, x.Close())
	if got := x.PeakRSS(); got != 600<<20 {
		t.Errorf("PeakRSS after Close = %d MiB, want 600, what the member reported once closed", got>>20)
	}
	y, err := NewWithMembers(Config{Name: "u", Method: MethodRRF, K: 60, Depth: 3, Members: []Member{m("a"), m("b")}}, []systems.System{&systemstest.Script{}, &systemstest.Script{}})
	require.NoError(t, err)
	if got := y.PeakRSS(); got != 0 {
		t.Errorf("PeakRSS of in-process members = %d, want 0", got)
	}
}

// reporting is a scripted member that embeds with a model.
type reporting struct {
	systemstest.Script
	id string
}

func (r *reporting) Models() []systems.ModelInfo { return []systems.ModelInfo{{ID: r.id}} }

// TestModelsForwarded: a hybrid reports its members' models in member
// order; a lexical member has none.
func TestModelsForwarded(t *testing.T) {
	m := func(n string) Member { return Member{Spec: systems.Spec{System: n, Config: "x"}, Weight: 1} }
	x, err := NewWithMembers(Config{Name: "u", Method: MethodRRF, K: 60, Depth: 3, Members: []Member{m("a"), m("b"), m("c")}},
		[]systems.System{&reporting{id: "m1"}, &systemstest.Script{}, &reporting{id: "m2"}})
	require.NoError(t, err)
	defer x.Close()
	require.Equal(t, []systems.ModelInfo{{ID: "m1"}, {ID: "m2"}}, x.Models())
}
