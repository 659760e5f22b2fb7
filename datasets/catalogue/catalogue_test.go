package catalogue

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

func TestFixturesDirHasTheFixtures(t *testing.T) {
	for _, f := range []string{"repoqa/repoqa-fixture.json", "trec/qrels", "cases/cases.jsonl", "beir"} {
		if _, err := os.Stat(filepath.Join(FixturesDir(), f)); err != nil {
			t.Errorf("FixturesDir() = %s: %v", FixturesDir(), err)
		}
	}
}

// TestNames: every dataset has one name, and Lookup finds each by it.
func TestNames(t *testing.T) {
	names := Names()
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("dataset %q twice in the catalogue", n)
		}
		seen[n] = true
		f, d, err := Lookup(n)
		if err != nil {
			t.Errorf("Lookup(%q): %v", n, err)
			continue
		}
		if got := f.Name + "/" + d.Name; got != n || d.Load == nil {
			t.Errorf("Lookup(%q) = %s (loader set: %v), want itself with a loader", n, got, d.Load != nil)
		}
	}
	// The eight families of the bench, in its order, and a few names the
	// docs use.
	var fams []string
	for _, f := range Families() {
		fams = append(fams, f.Name)
	}
	if diff := cmp.Diff([]string{"repoqa", "repoqa-langs", "sweqa", "coderag", "cosqa", "trec", "beir", "cases"}, fams); diff != "" {
		t.Errorf("families (-want +got):\n%s", diff)
	}
	for _, n := range []string{"repoqa/docstring", "repoqa-langs/go-doc", "coderag/humaneval", "trec/vaswani", "cases/fixture"} {
		if !seen[n] {
			t.Errorf("Names() lacks %q", n)
		}
	}
	for _, bad := range []string{"nosuch/x", "repoqa", "repoqa/", "/docstring", "trec/vaswani/x"} {
		if _, _, err := Lookup(bad); err == nil || !strings.Contains(err.Error(), "known: repoqa/fixture") {
			t.Errorf("Lookup(%q): error %v, want an unknown dataset listing the known ones", bad, err)
		}
	}
}

// recorder is a Loader that records the splits asked of it and returns a
// dataset of two corpora, one task each, gold docs d1 (corpus a) and d2
// (corpus b).
type recorder struct{ calls []string }

func (r *recorder) load(name string) Loader {
	return func(dir, split string) (*datasets.Dataset, error) {
		r.calls = append(r.calls, name+":"+dir+":"+split)
		ds := &datasets.Dataset{Name: "ds", Split: split, Corpora: map[string]*corpus.Corpus{}}
		for _, c := range []string{"a", "b"} {
			ds.Corpora[c] = &corpus.Corpus{ID: c, Docs: []corpus.Doc{{ID: "d1"}, {ID: "d2"}, {ID: "d3"}}}
		}
		ds.Tasks = []datasets.Task{
			{ID: "t1", CorpusID: "a", Gold: []datasets.Relevant{{Kind: "doc", ID: "d1", Grade: 1}}},
			{ID: "t2", CorpusID: "b", Gold: []datasets.Relevant{{Kind: "doc", ID: "d2", Grade: 1}}},
		}
		return ds, nil
	}
}

func TestLoadSmall(t *testing.T) {
	tests := []struct {
		name      string
		d         func(r *recorder) Dataset
		calls     []string
		split     string
		corpora   []string
		docs      int // docs left in corpus a
		reasoning string
	}{
		{"default", func(r *recorder) Dataset { return Dataset{Load: r.load("load")} },
			[]string{"load:D:small_test"}, "small_test", []string{"a", "b"}, 3,
			"without Small or Pool, small is the small_test split as loaded"},
		{"small", func(r *recorder) Dataset { return Dataset{Load: r.load("load"), Small: []string{"b"}} },
			[]string{"load:D:test"}, SmallSplit, []string{"b"}, 0,
			"Small restricts the test split to its corpora"},
		{"small-corpora", func(r *recorder) Dataset {
			return Dataset{Load: r.load("load"), Small: []string{"a"}, LoadSmallCorpora: r.load("corpora")}
		}, []string{"corpora:D:test"}, SmallSplit, []string{"a"}, 3,
			"LoadSmallCorpora replaces Load for the test split of the Small corpora"},
		{"pool", func(r *recorder) Dataset { return Dataset{Load: r.load("load"), Pool: true} },
			[]string{"load:D:small_test", "load:D:all"}, SmallSplit, []string{"a", "b"}, 1,
			"Pool searches small_test among the docs judged in all (d1 alone in corpus a)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			ds, err := tc.d(r).LoadSmall("D")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.calls, r.calls); diff != "" {
				t.Errorf("%s: loader calls (-want +got):\n%s", tc.reasoning, diff)
			}
			var corpora []string
			for id := range ds.Corpora {
				corpora = append(corpora, id)
			}
			slices.Sort(corpora)
			if ds.Split != tc.split || !slices.Equal(corpora, tc.corpora) {
				t.Errorf("%s: split %q corpora %q, want %q %q", tc.reasoning, ds.Split, corpora, tc.split, tc.corpora)
			}
			if a := ds.Corpora["a"]; a != nil && len(a.Docs) != tc.docs {
				t.Errorf("%s: corpus a has %d docs, want %d", tc.reasoning, len(a.Docs), tc.docs)
			}
		})
	}
}

// TestHermetic loads every hermetic dataset from the fixtures, as a run
// of any size does (split all, no data pack).
func TestHermetic(t *testing.T) {
	n := 0
	for _, f := range Families() {
		for _, d := range f.Datasets {
			if !d.Hermetic {
				continue
			}
			n++
			ds, err := d.Load("", datasets.SplitAll)
			if err != nil {
				t.Errorf("%s/%s: %v", f.Name, d.Name, err)
				continue
			}
			if len(ds.Tasks) == 0 || len(ds.Corpora) == 0 || ds.Split != datasets.SplitAll {
				t.Errorf("%s/%s: %d tasks, %d corpora, split %q; want tasks and corpora of split all", f.Name, d.Name, len(ds.Tasks), len(ds.Corpora), ds.Split)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d hermetic datasets, want the 4 fixtures (repoqa, trec, beir, cases)", n)
	}
}

// TestPlainPackage: the catalogue links neither testing nor the runner, so
// that the CLI can name its datasets (go list's answer, not this file's
// imports, which are the test's).
func TestPlainPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the dependencies")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/retrievalbench/retrievalbench/datasets") {
		t.Fatalf("go list -deps gave %q, want the catalogue's dependencies", deps)
	}
	for _, bad := range []string{"testing", "github.com/retrievalbench/retrievalbench/benchtest", "github.com/retrievalbench/retrievalbench/harness", "github.com/retrievalbench/retrievalbench/systems"} {
		if slices.Contains(deps, bad) {
			t.Errorf("the catalogue depends on %s", bad)
		}
	}
}
