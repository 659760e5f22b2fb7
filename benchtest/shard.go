package benchtest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Shard is one of N parts of a run's cells (-shard I/N, 1 ≤ I ≤ N): a CI
// matrix runs the N parts on N machines with the same command but -shard,
// each writing its own -results directory, and `retrievalbench leaderboard
// -results A,B,C` builds the leaderboard of the whole run from them.
//
// Cells are whole dataset × system × config cells (a benchmark cell's
// op=index and op=search go together). Each Test or Benchmark call assigns
// the cells its -run/-bench and -skip patterns select, longest first, each
// to the shard with the least cost so far (carried over from the calls
// before it in the binary, so that the families together stay balanced);
// ties go to the lower shard. The cost of a cell is its wall time in a
// previous run's cell files (-shard-costs DIR), else the mean of the costs
// known, else 1 (so without costs, cells are dealt round-robin in name
// order). The assignment depends only on the selected cells, their order
// and the costs: every shard must run the same selection and costs.
type Shard = shard.Shard

// ParseShard reads "I/N". The empty string is the whole run: Shard{I: 1, N: 1}.
func ParseShard(s string) (Shard, error) { return shard.Parse(s) }

// planner deals cells to shards, carrying each shard's load from one Test
// (or Benchmark) call of the binary to the next.
type planner struct {
	mu    sync.Mutex
	loads []float64
	// done keeps each call's assignment: -count runs a Test or Benchmark
	// function again, and the same cells must stay in the same shard.
	done map[string]assignment
}

// the binary's planners: one for tests, one for benchmarks (a run does one
// or the other per cell).
var testPlanner, benchPlanner planner

// assignment is the shard (1-based) of each cell, by name.
type assignment map[string]int

// of is the shard of the named cell: the first for a cell left out of the
// assignment (one that skips at once: see Flags.mayRun), so that its skip
// line appears once.
func (a assignment) of(name string) int {
	if i, ok := a[name]; ok {
		return i
	}
	return 1
}

// assign returns the shard (1-based) of each cell, by name.
func (p *planner) assign(n int, cells []shard.Cell) assignment {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.loads) != n {
		p.loads = make([]float64, n)
		p.done = map[string]assignment{}
	}
	var key strings.Builder
	for _, c := range cells {
		key.WriteString(c.Name + "\n")
	}
	if out, ok := p.done[key.String()]; ok {
		return out
	}
	out := assignment(shard.Deal(p.loads, cells))
	p.done[key.String()] = out
	return out
}

// Costs are the recorded wall times of cells, in seconds, by
// family/system/config/dataset (resultfmt.Cell.Cell).
type Costs map[string]float64

// ReadCosts reads the cell files of a previous run's results directory
// ("" reads none). A cell file without a cell name or a time (written
// before either was recorded) is left out.
func ReadCosts(dir string) (Costs, error) {
	costs := Costs{}
	if dir == "" {
		return costs, nil
	}
	cells, err := resultfmt.ReadCells(dir)
	if err != nil {
		return nil, fmt.Errorf("-shard-costs: %w", err)
	}
	for _, c := range cells {
		if c.Cell != "" && c.Seconds > 0 {
			costs[c.Cell] += c.Seconds
		}
	}
	return costs, nil
}

// of fills in each cell's cost: recorded, else the mean of those recorded,
// else 1.
func (c Costs) of(names []string) []shard.Cell { return shard.Costs(names, c) }

// costsOnce reads -shard-costs once per binary.
var costsOnce struct {
	sync.Once
	costs Costs
	err   error
}

// shardOf assigns the cells named (family/system/config/dataset) for this
// run's -shard; nil for a whole run.
func (f *Flags) shardOf(p *planner, names []string) (assignment, Shard, error) {
	sh, err := ParseShard(f.Shard)
	if err != nil || sh.IsWhole() {
		return nil, sh, err
	}
	costsOnce.Do(func() { costsOnce.costs, costsOnce.err = ReadCosts(f.ShardCosts) })
	if costsOnce.err != nil {
		return nil, sh, costsOnce.err
	}
	return p.assign(sh.N, costsOnce.costs.of(names)), sh, nil
}

// mayRun reports whether the cell of spec on d can run at this size: not a
// data-pack dataset at -size=fixture, not a cell skipped by design for its
// cost. Only those are dealt to shards (an over-budget cell is known only
// once its dataset is loaded, and is dealt too).
func (f *Flags) mayRun(spec systems.Spec, fam catalogue.Family, d catalogue.Dataset) bool {
	if f.Size == SizeFixture && !d.Hermetic {
		return false
	}
	return byDesign(spec, f, fam, d, "") == ""
}

// cellKey names a cell for sharding and costs: family/system/config/dataset
// (the family's name, not the Test function's, so that a user's module and
// this repository's bench key a cell alike).
func cellKey(family, system, config, dataset string) string {
	return family + "/" + system + "/" + config + "/" + dataset
}
