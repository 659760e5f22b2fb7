package matrix

import (
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Plan is the matrix of one run — which cells exist, their keys, why a
// cell skips by design, what each was recorded to cost and which part of
// a sharded run it is dealt to — built in one place (NewPlan) for every
// runner: benchtest's Test and Benchmark walk it, a campaign runs its
// part of it and writes it in part.json, Merge checks that every part was
// dealt the same one.
type Plan struct {
	// Shard is the part of the run this process runs (shard.Whole for a
	// whole run).
	Shard shard.Shard
	// Cells are every cell, spec-major (the specs' order), datasets in the
	// order given.
	Cells []Cell
	// Total is how many cells this part runs: selected, dealt here, not
	// unsupported. Cell.N counts them.
	Total int
	// NoCosts is Costs.NoneMatch's error for a sharded plan whose costs
	// record none of its dealt cells (they are dealt round-robin); the
	// runner decides whether it fails the run (a campaign) or is a log
	// line (a benchtest family).
	NoCosts error
}

// Cell is one cell of a Plan: one spec on one dataset (a campaign's:
// repository).
type Cell struct {
	Key  Key
	Spec systems.Spec
	// Dataset is the index of the cell's dataset in PlanInput.Datasets.
	Dataset int
	// Skip is why the cell does not run, by design (Kind "" when it runs).
	Skip Skip
	// Selected reports whether the run's selection (PlanInput.Selected)
	// picks the cell; an unsupported cell is never asked.
	Selected bool
	// Cost is the cell's recorded wall time in seconds (0: none recorded).
	Cost float64
	// Part is the part (1-based) the cell is dealt to; 1 in a whole run
	// and for a cell that is not dealt (one that skips at once, so that
	// its skip line appears once).
	Part int
	// N is the cell's place among the Total cells this part runs (1-based);
	// 0 when it does not run here.
	N int
}

// Mine reports whether c runs in the plan's part: it is dealt to it.
func (p *Plan) Mine(c Cell) bool { return c.Part == p.Shard.I }

// SkipKind says why a cell skips by design.
type SkipKind string

// The reasons a cell skips by design.
const (
	// SkipUnsupported: the system cannot do the dataset
	// (Spec.Bench.Unsupported); the cell skips at once in every part, is
	// not dealt and is not counted.
	SkipUnsupported SkipKind = "unsupported"
	// SkipHeavy: a heavy config (Spec.Bench.Heavy) outside the datasets of
	// this size it runs on.
	SkipHeavy SkipKind = "heavy"
	// SkipFixturesOnly: a config that runs on the fixtures only at this
	// size (Spec.Bench.FixturesOnly).
	SkipFixturesOnly SkipKind = "fixtures-only"
	// SkipSize: a dataset this run's size does not load (a data-pack
	// dataset at -size=fixture).
	SkipSize SkipKind = "size"
)

// A config over its corpus budget (Spec.Bench.MaxDocs) is known only once
// its dataset is loaded and chunked: such a cell is dealt and counted like
// one that runs, and its runner skips it then.

// Skip is why a cell skips by design: its kind and the message the runner
// prints (naming the command that runs the cell anyway, where there is
// one). The zero Skip: the cell runs.
type Skip struct {
	Kind SkipKind
	Why  string
}

// PlanInput is what a Plan is built from.
type PlanInput struct {
	Family   string
	Specs    []systems.Spec
	Datasets []string // names; a campaign's repositories
	// Bench applies each spec's Spec.Bench schedule: a spec has a cell on
	// the datasets it runs on or is unsupported on (Only, Unsupported). A
	// campaign runs every spec on every repository.
	Bench bool
	// Skip says why a cell that exists and is supported skips by design at
	// this run's size; nil: none does. A cell that skips is not dealt.
	Skip func(spec systems.Spec, dataset int, key Key) Skip
	// Selected reports whether the run's selection picks the cell (go
	// test's -run/-bench and -skip); nil: every cell. Only selected cells
	// are dealt and counted.
	Selected func(Key) bool
	// Costs are the recorded costs cells are dealt by.
	Costs Costs
	// Shard is this process's part.
	Shard shard.Shard
	// Deal deals the cells keys to the parts; nil: Costs.Deal from empty
	// loads. benchtest carries the loads from one family to the next.
	Deal func(keys []Key) (Dealt, error)
}

// NewPlan builds the plan of in: every cell in order, its skip, whether it
// is selected, its recorded cost, the part it is dealt to (the selected
// cells that may run, by Costs.Deal: costliest first, each to the least
// loaded part) and its place in this part's count.
func NewPlan(in PlanInput) *Plan {
	if in.Shard.N == 0 {
		in.Shard = shard.Whole
	}
	pl := &Plan{Shard: in.Shard}
	var deal []Key
	for _, spec := range in.Specs {
		for i, d := range in.Datasets {
			if in.Bench && !spec.Bench.HasCell(in.Family, d) {
				continue // not a cell of this system (Spec.Bench.Only)
			}
			k := Key{Family: in.Family, System: spec.System, Config: spec.Config, Dataset: d}
			if !in.Bench {
				k = SpecKey(in.Family, spec.Name(), d) // as part.json's cells are read back (ReadCosts)
			}
			c := Cell{Key: k, Spec: spec, Dataset: i, Part: 1, Cost: in.Costs.Seconds[k]}
			if why, ok := spec.Bench.UnsupportedOn(in.Family, d); in.Bench && ok {
				c.Skip = Skip{Kind: SkipUnsupported, Why: why}
			} else {
				c.Selected = in.Selected == nil || in.Selected(k)
				if in.Skip != nil {
					c.Skip = in.Skip(spec, i, k)
				}
				if c.Selected && c.Skip.Kind == "" {
					deal = append(deal, k)
				}
			}
			pl.Cells = append(pl.Cells, c)
		}
	}
	if in.Shard.IsWhole() {
		pl.NoCosts = in.Costs.NoneMatch(deal)
	} else {
		var dealt Dealt
		if in.Deal != nil {
			dealt, pl.NoCosts = in.Deal(deal)
		} else {
			dealt, pl.NoCosts = in.Costs.Deal(make([]float64, in.Shard.N), deal)
		}
		for i := range pl.Cells {
			if p, ok := dealt[pl.Cells[i].Key]; ok {
				pl.Cells[i].Part = p
			}
		}
	}
	for i := range pl.Cells {
		c := &pl.Cells[i]
		if c.Skip.Kind != SkipUnsupported && c.Selected && pl.Mine(*c) {
			pl.Total++
			c.N = pl.Total
		}
	}
	return pl
}

// Dealt is the part each cell of the plan is dealt to, by key: what every
// part of a sharded run must agree on.
func (p *Plan) Dealt() Dealt {
	d := make(Dealt, len(p.Cells))
	for _, c := range p.Cells {
		d[c.Key] = c.Part
	}
	return d
}
