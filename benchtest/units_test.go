package benchtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnits checks the quality units and the unit metadata that benchmark
// files carry, derived from the measures' values, against the lines written
// out by hand: benchstat and gate files of earlier runs read these names.
func TestUnits(t *testing.T) {
	want := []QualityUnit{{"hit@1", "hit@1"}, {"hit@10", "hit@10"}, {"mrr", "MRR"}, {"ndcg@10", "nDCG@10"}}
	if diff := cmp.Diff(want, QualityUnits()); diff != "" {
		t.Errorf("QualityUnits (-want +got):\n%s", diff)
	}
	lines := []string{
		"Unit hit@1 better=higher assume=exact",
		"Unit hit@10 better=higher assume=exact",
		"Unit MRR better=higher assume=exact",
		"Unit nDCG@10 better=higher assume=exact",
		"Unit queries/s better=higher",
		"Unit docs/s better=higher",
		"Unit peak-RSS-bytes better=lower",
	}
	if diff := cmp.Diff(lines, UnitMetadata()); diff != "" {
		t.Errorf("UnitMetadata (-want +got):\n%s", diff)
	}
}
