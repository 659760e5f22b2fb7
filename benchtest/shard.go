package benchtest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/matrix"
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
// previous run's cell files (-shard-costs DIR, read by matrix.ReadCosts:
// a missing directory, or one without cell files, is an error), else the
// mean of the costs known, else 1 (so without costs, cells are dealt
// round-robin in key order). The assignment depends only on the selected cells, their order
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

// assignment is the shard (1-based) of each cell (matrix.Dealt).
type assignment = matrix.Dealt

// assign deals keys to n shards by costs (matrix.Costs.Deal), carrying
// the loads on from the calls before; err is Deal's (costs that record
// none of keys).
func (p *planner) assign(n int, keys []matrix.Key, costs matrix.Costs) (assignment, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.loads) != n {
		p.loads = make([]float64, n)
		p.done = map[string]assignment{}
	}
	var id strings.Builder
	for _, k := range keys {
		id.WriteString(k.String() + "\n")
	}
	if out, ok := p.done[id.String()]; ok {
		return out, nil
	}
	out, err := costs.Deal(p.loads, keys)
	p.done[id.String()] = out
	return out, err
}

// Costs are the recorded wall times of cells (matrix.Costs): the one
// record a sharded run balances by, for benchtest and campaigns alike.
//
// Deprecated: use matrix.Costs.
type Costs = matrix.Costs

// ReadCosts reads the cells' costs a previous run recorded in dir ("" reads
// none): matrix.ReadCosts.
//
// Deprecated: use matrix.ReadCosts.
func ReadCosts(dir string) (Costs, error) { return matrix.ReadCosts(dir) }

// costsOnce reads -shard-costs once per binary.
var costsOnce struct {
	sync.Once
	costs matrix.Costs
	err   error
}

// costs reads -shard-costs once per binary (matrix.ReadCosts).
func (f *Flags) costs() (matrix.Costs, error) {
	costsOnce.Do(func() { costsOnce.costs, costsOnce.err = matrix.ReadCosts(f.ShardCosts) })
	if costsOnce.err != nil {
		return matrix.Costs{}, fmt.Errorf("-shard-costs: %w", costsOnce.err)
	}
	return costsOnce.costs, nil
}

// keyOf is the key of the cell of spec on dataset d of family f (the
// family's name, not the Test function's, so that a user's module and this
// repository's bench key a cell alike).
func keyOf(f catalogue.Family, spec systems.Spec, d catalogue.Dataset) matrix.Key {
	return matrix.Key{Family: f.Name, System: spec.System, Config: spec.Config, Dataset: d.Name}
}
