package benchtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
)

// TestDeprecatedAliases: the names that moved to datasets/catalogue and
// systems on 2026-12-03 still compile under their old benchtest names (a
// module written against the earlier API: `benchtest.Test(t, suite(),
// benchtest.RepoQA())`) and give what the new names give (issue 39 item
// 11). Remove them, and this test, one release later (CHANGELOG.md).
func TestDeprecatedAliases(t *testing.T) {
	names := func(fs ...Family) []string {
		var out []string
		for _, f := range fs {
			for _, d := range f.Datasets {
				out = append(out, f.Name+"/"+d.Name)
			}
		}
		return out
	}
	old := names(RepoQA(), RepoQALangs(), SWEQA(), CodeRAG(), CoSQA(), TREC(), BEIR(), Cases())
	now := names(catalogue.RepoQA(), catalogue.RepoQALangs(), catalogue.SWEQA(), catalogue.CodeRAG(), catalogue.CoSQA(), catalogue.TREC(), catalogue.BEIR(), catalogue.Cases())
	if diff := cmp.Diff(now, old); diff != "" {
		t.Errorf("deprecated families differ from the catalogue's (-catalogue +benchtest):\n%s", diff)
	}
	if diff := cmp.Diff(catalogue.Names(), names(Families()...)); diff != "" {
		t.Errorf("Families differs from the catalogue's (-catalogue +benchtest):\n%s", diff)
	}
	if FixturesDir() != catalogue.FixturesDir() || FixturesDir() == "" {
		t.Errorf("FixturesDir = %q, want %q", FixturesDir(), catalogue.FixturesDir())
	}
	var d Dataset = catalogue.Dataset{Name: "x"}
	var p ChildPeaker
	var r systems.PeakRSSReporter = p
	_, _ = d, r
}
