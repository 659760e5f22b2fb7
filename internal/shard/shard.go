// Package shard deals the cells of a run to the N parts of a CI matrix
// (-shard I/N): deterministically, longest first, each to the part with
// the least cost so far. The benchmark's cells (package benchtest) and a
// campaign's (package campaign) are dealt by it alike.
package shard

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Shard is part I of N (1 ≤ I ≤ N). Shard{1, 1} is the whole run.
type Shard struct {
	I, N int
}

// Whole is the run of every cell.
var Whole = Shard{1, 1}

// Parse reads "I/N". The empty string is the whole run.
func Parse(s string) (Shard, error) {
	if s == "" {
		return Whole, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("-shard %q: want I/N with 1 ≤ I ≤ N, e.g. 2/3", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// IsWhole reports whether s is the whole run (N = 1).
func (s Shard) IsWhole() bool { return s.N <= 1 }

// Cell is one unit of work to deal: its name and its cost.
type Cell struct {
	Name string
	Cost float64
}

// Costs fills in each named cell's cost: its recorded cost, else the mean
// of the recorded costs of the cells named, else 1 (so that, without any
// record, Deal deals round-robin in name order).
func Costs(names []string, recorded map[string]float64) []Cell {
	known, sum := 0, 0.0
	for _, n := range names {
		if v, ok := recorded[n]; ok {
			known++
			sum += v
		}
	}
	def := 1.0
	if known > 0 {
		def = sum / float64(known)
	}
	out := make([]Cell, len(names))
	for i, n := range names {
		v, ok := recorded[n]
		if !ok {
			v = def
		}
		out[i] = Cell{Name: n, Cost: v}
	}
	return out
}

// Deal assigns each cell to one of len(loads) parts: the costliest first
// (ties in name order), each to the part with the least load so far (ties
// to the lower part), whose load it then adds to. It returns the part
// (1-based) of each cell by name. The result depends only on the cells,
// their costs and the loads it starts from.
func Deal(loads []float64, cells []Cell) map[string]int {
	order := append([]Cell(nil), cells...)
	sort.SliceStable(order, func(a, b int) bool {
		if order[a].Cost != order[b].Cost {
			return order[a].Cost > order[b].Cost
		}
		return order[a].Name < order[b].Name
	})
	out := make(map[string]int, len(cells))
	for _, c := range order {
		best := 0
		for i := 1; i < len(loads); i++ {
			if loads[i] < loads[best] {
				best = i
			}
		}
		loads[best] += c.Cost
		out[c.Name] = best + 1
	}
	return out
}
