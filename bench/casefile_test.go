package bench

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/campaign"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

// TestCaseFileMatchesCampaign: a user's case file run as go test cells
// (benchtest.CaseFile, what TestCaseFile -cases -repos runs) and as a
// campaign over the same repositories give every task the same value of
// every measure both record (nDCG@10 among them): fixtures/cases
// (10 cases, two repositories) with bm25/code-weighted.
func TestCaseFileMatchesCampaign(t *testing.T) {
	const fx = "../fixtures/cases"
	spec, ok := builtin.Find(builtin.Specs(), "bm25/code-weighted")
	if !ok {
		t.Fatal("no bm25/code-weighted among the built-in systems")
	}
	casesFile, manifest := filepath.Join(fx, "cases.jsonl"), filepath.Join(fx, "manifest.json")

	cfg := campaign.DefaultConfig()
	cfg.Cases, cfg.Repos = casesFile, manifest
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{spec}
	res, err := campaign.Run(t.Context(), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	camp := values(res.Records)

	fl := benchtest.DefaultFlags()
	fl.Size, fl.Create, fl.Results = benchtest.SizeFixture, true, t.TempDir()
	s := benchtest.Suite{Systems: []systems.Spec{spec}, Golden: t.TempDir(), Flags: fl}
	if !t.Run("cells", func(t *testing.T) { benchtest.Test(t, s, benchtest.CaseFile(casesFile, manifest)) }) {
		t.Fatal("the case file's go test cell failed")
	}
	recs, err := resultfmt.ReadRecords(fl.Results)
	if err != nil {
		t.Fatal(err)
	}
	cells := values(recs)

	if len(camp) != 10 {
		t.Fatalf("the campaign judged %d tasks, want fixtures/cases' 10: %v", len(camp), slices.Sorted(maps.Keys(camp)))
	}
	nonzero := 0
	for _, task := range slices.Sorted(maps.Keys(camp)) {
		if _, ok := camp[task]["ndcg@10"]; !ok {
			t.Fatalf("%s: the campaign recorded no nDCG@10: %v", task, camp[task])
		}
		// Every measure both record (each runner records its own set:
		// nDCG@10 and hit@1, hit@5 among those both do).
		shared := 0
		for m, c := range camp[task] {
			g, ok := cells[task][m]
			if !ok {
				continue
			}
			shared++
			if c != g {
				t.Errorf("%s %s: campaign %v, go test cell %v", task, m, c, g)
			}
		}
		if _, ok := cells[task]["ndcg@10"]; !ok || shared < 3 {
			t.Errorf("%s: %d measures recorded by both (go test: %v), want nDCG@10 among at least 3", task, shared, slices.Sorted(maps.Keys(cells[task])))
		}
		if camp[task]["ndcg@10"] > 0 {
			nonzero++
		}
		t.Logf("%s nDCG@10: campaign %.4f, go test %.4f", task, camp[task]["ndcg@10"], cells[task]["ndcg@10"])
	}
	if len(cells) != len(camp) || nonzero == 0 {
		t.Errorf("go test judged %d tasks, the campaign %d (%d with nDCG@10 > 0)", len(cells), len(camp), nonzero)
	}
}

// values are the measures of each task's record.
func values(recs []resultfmt.Record) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, r := range recs {
		out[r.Task] = r.Values
	}
	return out
}
