package benchtest

import (
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/systems"
)

// plan is one family's matrix.Plan for one Test or Benchmark call, built
// in one place (Suite.plan) and walked by both: which cells exist (every
// dataset a spec has a cell on, Spec.Bench.Only), their keys, which skip
// at once as unsupported or by design, which the -run/-bench and -skip
// patterns select, which shard each is dealt to and its place in the
// count. It adds what the walk needs: the systems in the Suite's order,
// their specs, and each cell's catalogue.Dataset.
type plan struct {
	*matrix.Plan
	family  catalogue.Family
	systems []string                  // system names, in the Suite's order
	configs map[string][]systems.Spec // each system's specs on the family, in order
	byKey   map[matrix.Key]int        // index in Cells
	note    string                    // what -shard-costs could not do (logged)
}

// cellsOf lists the cells of spec, in the family's dataset order.
func (pl *plan) cellsOf(spec systems.Spec) []*matrix.Cell {
	var out []*matrix.Cell
	for _, d := range pl.family.Datasets {
		if i, ok := pl.byKey[keyOf(pl.family, spec, d)]; ok {
			out = append(out, &pl.Cells[i])
		}
	}
	return out
}

// dataset is c's catalogue dataset.
func (pl *plan) dataset(c *matrix.Cell) catalogue.Dataset { return pl.family.Datasets[c.Dataset] }

// plan builds f's plan for a call whose patterns are sel, naming a cell's
// test or benchmark by name (what sel matches) and the command that runs
// it alone by command, dealing through p.
func (s *Suite) plan(p *planner, f catalogue.Family, sel selection, name func(matrix.Key) string,
	command func(name string, f *Flags) string) (*plan, error) {
	fl := s.flags()
	sh, err := ParseShard(fl.Shard)
	if err != nil {
		return nil, err
	}
	pl := &plan{family: f, byKey: map[matrix.Key]int{}}
	pl.systems, pl.configs = bySystem(onFamily(s.Systems, f))
	var specs []systems.Spec
	for _, sys := range pl.systems {
		specs = append(specs, pl.configs[sys]...)
	}
	names := make([]string, len(f.Datasets))
	for i, d := range f.Datasets {
		names[i] = d.Name
	}
	in := matrix.PlanInput{Family: f.Name, Specs: specs, Datasets: names, Bench: true, Shard: sh,
		Skip: func(spec systems.Spec, i int, k matrix.Key) matrix.Skip {
			return byDesign(spec, fl, f, f.Datasets[i], command(name(k), fl))
		},
		Selected: func(k matrix.Key) bool { return sel.runs(name(k)) },
	}
	if !sh.IsWhole() {
		costs, err := fl.costs()
		if err != nil {
			return nil, err
		}
		in.Costs = costs
		in.Deal = func(keys []matrix.Key) (matrix.Dealt, error) { return p.assign(sh.N, keys, costs) }
	}
	pl.Plan = matrix.NewPlan(in)
	if err := pl.NoCosts; err != nil {
		// Not a failure: a family new since the costs were recorded has
		// none; every shard given the same costs still deals alike.
		pl.note = "SHARD COSTS: " + err.Error() + " These cells are dealt round-robin."
	}
	for i, c := range pl.Cells {
		pl.byKey[c.Key] = i
	}
	return pl, nil
}
