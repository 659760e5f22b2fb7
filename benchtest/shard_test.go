package benchtest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/shard"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Shard
		wantErr bool
		reason  string
	}{
		{"", Shard{I: 1, N: 1}, false, "no flag: the whole run"},
		{"2/3", Shard{I: 2, N: 3}, false, "the second of three"},
		{"1/1", Shard{I: 1, N: 1}, false, "one part is the whole run"},
		{"0/3", Shard{}, true, "parts count from 1, as a CI matrix's index + 1"},
		{"4/3", Shard{}, true, "past the last part"},
		{"2", Shard{}, true, "no count"},
		{"a/b", Shard{}, true, "not numbers"},
		{"1/0", Shard{}, true, "zero parts"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseShard(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v (%s)", tc.in, got, err, tc.want, tc.wantErr, tc.reason)
			}
		})
	}
}

func TestShardAssignment(t *testing.T) {
	names := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("repoqa/bm25/c%d/fixture", i))
		}
		return out
	}
	t.Run("round-robin without costs", func(t *testing.T) {
		var p planner
		got := p.assign(3, Costs{}.of(names(7)))
		want := assignment{}
		for i, n := range names(7) {
			want[n] = i%3 + 1
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cells of equal cost are dealt in name order (-want +got):\n%s", diff)
		}
	})
	t.Run("balanced by cost", func(t *testing.T) {
		var p planner
		costs := Costs{}
		for i, c := range []float64{10, 7, 5, 4, 3, 1} {
			costs[names(6)[i]] = c
		}
		got := p.assign(2, costs.of(names(6)))
		load := map[int]float64{}
		for n, s := range got {
			load[s] += costs[n]
		}
		require.Equal(t, map[int]float64{1: 15, 2: 15}, load, "longest first, each to the least loaded shard: 10+4+1 and 7+5+3")
	})
	t.Run("unknown cells cost the mean", func(t *testing.T) {
		c := Costs{"a": 2, "b": 4}.of([]string{"a", "b", "new"})
		require.Equal(t, []shard.Cell{{Name: "a", Cost: 2}, {Name: "b", Cost: 4}, {Name: "new", Cost: 3}}, c)
	})
	t.Run("deterministic and repeatable", func(t *testing.T) {
		var p1, p2 planner
		a1 := p1.assign(3, Costs{}.of(names(5)))
		b1 := p1.assign(3, Costs{}.of(names(4)[:2])) // the next family carries the loads on
		a2 := p2.assign(3, Costs{}.of(names(5)))
		b2 := p2.assign(3, Costs{}.of(names(4)[:2]))
		require.Equal(t, a1, a2)
		require.Equal(t, b1, b2)
		require.Equal(t, assignment{names(2)[0]: 3, names(2)[1]: 1}, b1, "the second family starts at the least loaded shards: 2+2+1 cells so far")
		require.Equal(t, a1, p1.assign(3, Costs{}.of(names(5))), "-count runs a family again: same assignment, loads not counted twice")
	})
}
