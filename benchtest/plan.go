package benchtest

import (
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/systems"
)

// plan is one family's cells for one Test or Benchmark call, built in one
// place (Suite.plan) and walked by both: which cells exist (every dataset
// a spec has a cell on, Spec.Bench.Only), their keys (matrix.Key), which
// skip at once as unsupported, which the -run/-bench and -skip patterns
// select, and which shard each is dealt to (matrix.Costs.Deal).
type plan struct {
	systems []string                  // system names, in the Suite's order
	configs map[string][]systems.Spec // each system's specs on the family, in order
	cells   map[matrix.Key]*planCell
	shard   Shard
	total   int    // the cells this process runs: selected and in its shard
	note    string // what -shard-costs could not do (logged)
}

// planCell is one cell of a plan.
type planCell struct {
	spec systems.Spec
	d    catalogue.Dataset
	key  matrix.Key
	// unsupported is why spec cannot do d (Spec.Bench.Unsupported): the
	// cell skips at once, in every shard.
	unsupported string
	selected    bool // the patterns select it
	// byDesign is why the cell does not run at this size, naming the
	// command that runs it (byDesign: heavy, fixtures-only); "" when it
	// runs. A corpus over its budget is known only once the dataset is
	// loaded (overBudget).
	byDesign string
	// part is the shard the cell runs in (1 in a whole run, and for a
	// cell that skips at once, so that its skip line appears once).
	part int
	// n is the cell's place among the total this process runs (1-based);
	// 0 when it does not run here.
	n int
}

// mine reports whether the cell runs in this process's shard.
func (c *planCell) mine(sh Shard) bool { return c.part == sh.I }

// cellsOf lists the cells of spec, in the family's dataset order.
func (pl *plan) cellsOf(spec systems.Spec, f catalogue.Family) []*planCell {
	var out []*planCell
	for _, d := range f.Datasets {
		if c, ok := pl.cells[keyOf(f, spec, d)]; ok {
			out = append(out, c)
		}
	}
	return out
}

// plan builds f's plan for a call whose patterns are sel, naming a cell's
// test or benchmark by name (what sel matches) and the command that runs
// it alone by command, dealing through p.
func (s *Suite) plan(p *planner, f catalogue.Family, sel selection, name func(systems.Spec, catalogue.Dataset) string,
	command func(name string, f *Flags) string) (*plan, error) {
	fl := s.flags()
	specs := onFamily(s.Systems, f)
	pl := &plan{cells: map[matrix.Key]*planCell{}}
	pl.systems, pl.configs = bySystem(specs)
	var order []*planCell
	var deal []matrix.Key
	for _, sys := range pl.systems {
		for _, spec := range pl.configs[sys] {
			for _, d := range f.Datasets {
				if !spec.Bench.HasCell(f.Name, d.Name) {
					continue // not a cell of this system (Spec.Bench.Only)
				}
				c := &planCell{spec: spec, d: d, key: keyOf(f, spec, d), part: 1}
				if why, ok := spec.Bench.UnsupportedOn(f.Name, d.Name); ok {
					c.unsupported = why
				} else {
					n := name(spec, d)
					c.selected = sel.runs(n)
					c.byDesign = byDesign(spec, fl, f, d, command(n, fl))
					// Only cells that may run at this size are dealt: not a
					// data-pack dataset at -size=fixture, not a cell skipped
					// by design; the others skip at once in shard 1.
					if c.selected && !(fl.Size == SizeFixture && !d.Hermetic) && c.byDesign == "" {
						deal = append(deal, c.key)
					}
				}
				pl.cells[c.key] = c
				order = append(order, c)
			}
		}
	}
	dealt, sh, note, err := fl.shardOf(p, deal)
	if err != nil {
		return nil, err
	}
	pl.shard, pl.note = sh, note
	for _, c := range order {
		if dealt != nil && c.unsupported == "" {
			c.part = shardOfKey(dealt, c.key)
		}
		if c.unsupported == "" && c.selected && c.mine(sh) {
			pl.total++
			c.n = pl.total
		}
	}
	return pl, nil
}
