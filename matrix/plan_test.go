package matrix

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/systems"
)

// TestNewPlan builds one plan of a family with every way a cell can be:
// outside a spec's Only, unsupported, skipped by design, left out by the
// selection, dealt by recorded costs; and checks each cell's fields.
func TestNewPlan(t *testing.T) {
	only := systems.Spec{System: "peer", Config: "a", Bench: systems.Schedule{Only: []string{"fam/d1"}}}
	unsup := systems.Spec{System: "peer", Config: "b", Bench: systems.Schedule{
		Unsupported: []systems.Unsupported{{Datasets: "fam/d2", Reason: "reads no .go files"}}}}
	heavy := systems.Spec{System: "dense", Config: "big", Bench: systems.Schedule{Heavy: true}}
	light := systems.Spec{System: "bm25", Config: "porter"}
	key := func(s systems.Spec, d string) Key { return Key{"fam", s.System, s.Config, d} }
	costs := Costs{Dirs: []string{"costs"}, Seconds: map[Key]float64{key(light, "d1"): 10, key(unsup, "d1"): 1}}
	in := PlanInput{
		Family: "fam", Specs: []systems.Spec{only, unsup, heavy, light}, Datasets: []string{"d1", "d2"}, Bench: true,
		Skip: func(s systems.Spec, i int, k Key) Skip {
			if s.Bench.Heavy && i == 1 {
				return Skip{SkipHeavy, "heavy on " + k.Dataset}
			}
			return Skip{}
		},
		Selected: func(k Key) bool { return k != key(light, "d2") },
		Costs:    costs,
		Shard:    shard.Shard{I: 2, N: 2},
	}
	type cell struct {
		Key      string
		Skip     SkipKind
		Selected bool
		Cost     float64
		Part, N  int
	}
	// Dealt (the selected cells that may run): bm25/porter/d1 (10) first,
	// then the two without a record at the mean of those recorded (5.5),
	// in key order, then peer/b/d1 (1), each to the least loaded part:
	// part 1 10, part 2 5.5, part 2 11, part 1 11.
	want := []cell{
		{"fam/peer/a/d1", "", true, 0, 2, 1},
		{"fam/peer/b/d1", "", true, 1, 1, 0},
		{"fam/peer/b/d2", SkipUnsupported, false, 0, 1, 0},
		{"fam/dense/big/d1", "", true, 0, 2, 2},
		{"fam/dense/big/d2", SkipHeavy, true, 0, 1, 0}, // not dealt: in part 1, so that its skip line appears once
		{"fam/bm25/porter/d1", "", true, 10, 1, 0},
		{"fam/bm25/porter/d2", "", false, 0, 1, 0},
	}
	pl := NewPlan(in)
	var got []cell
	for _, c := range pl.Cells {
		got = append(got, cell{c.Key.String(), c.Skip.Kind, c.Selected, c.Cost, c.Part, c.N})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if pl.Total != 2 || pl.NoCosts != nil {
		t.Errorf("total %d, no-costs %v; want 2, nil", pl.Total, pl.NoCosts)
	}
	// The same input dealt the same way in the other part: every part agrees.
	in.Shard = shard.Shard{I: 1, N: 2}
	other := NewPlan(in)
	if diff := cmp.Diff(pl.Dealt(), other.Dealt()); diff != "" {
		t.Errorf("parts 1 and 2 dealt differently (-2 +1):\n%s", diff)
	}
	if other.Total != 3 {
		t.Errorf("part 1 runs %d cells, want 3 (peer/b/d1, dense/big/d2 skipping as heavy, bm25/porter/d1)", other.Total)
	}

	// A campaign: no schedule, every spec on every repository, costs that
	// record none of the cells fail it.
	camp := NewPlan(PlanInput{Family: CampaignFamily, Specs: []systems.Spec{only, unsup}, Datasets: []string{"org/r"}, Costs: costs, Shard: shard.Whole})
	if len(camp.Cells) != 2 || camp.Cells[1].Skip.Kind != "" || camp.Cells[1].Key.String() != "campaign/peer/b/org/r" {
		t.Errorf("campaign cells = %+v; want peer/a and peer/b on org/r, neither skipped", camp.Cells)
	}
	if camp.NoCosts == nil {
		t.Error("costs recording none of a campaign's cells: no error")
	}
}
