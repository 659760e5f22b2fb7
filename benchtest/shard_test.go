package benchtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/matrix"
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
	keys := func(n int) []matrix.Key {
		var out []matrix.Key
		for i := range n {
			out = append(out, matrix.Key{Family: "repoqa", System: "bm25", Config: fmt.Sprintf("c%d", i), Dataset: "fixture"})
		}
		return out
	}
	names := func(n int) []string {
		var out []string
		for _, k := range keys(n) {
			out = append(out, k.String())
		}
		return out
	}
	none := matrix.Costs{}
	of := func(c matrix.Costs, ks []matrix.Key) []shard.Cell { cells, _ := c.Cells(ks); return cells }
	t.Run("round-robin without costs", func(t *testing.T) {
		var p planner
		got := p.assign(3, of(none, keys(7)))
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
		costs := matrix.Costs{Seconds: map[matrix.Key]float64{}}
		for i, c := range []float64{10, 7, 5, 4, 3, 1} {
			costs.Seconds[keys(6)[i]] = c
		}
		got := p.assign(2, of(costs, keys(6)))
		load := map[int]float64{}
		for i, n := range names(6) {
			load[got[n]] += costs.Seconds[keys(6)[i]]
		}
		require.Equal(t, map[int]float64{1: 15, 2: 15}, load, "longest first, each to the least loaded shard: 10+4+1 and 7+5+3")
	})
	t.Run("unknown cells cost the mean", func(t *testing.T) {
		k := keys(3)
		c, matched := matrix.Costs{Seconds: map[matrix.Key]float64{k[0]: 2, k[1]: 4}}.Cells(k)
		require.Equal(t, 2, matched)
		require.Equal(t, []shard.Cell{{Name: k[0].String(), Cost: 2}, {Name: k[1].String(), Cost: 4}, {Name: k[2].String(), Cost: 3}}, c)
	})
	t.Run("deterministic and repeatable", func(t *testing.T) {
		var p1, p2 planner
		a1 := p1.assign(3, of(none, keys(5)))
		b1 := p1.assign(3, of(none, keys(4)[:2])) // the next family carries the loads on
		a2 := p2.assign(3, of(none, keys(5)))
		b2 := p2.assign(3, of(none, keys(4)[:2]))
		require.Equal(t, a1, a2)
		require.Equal(t, b1, b2)
		require.Equal(t, assignment{names(2)[0]: 3, names(2)[1]: 1}, b1, "the second family starts at the least loaded shards: 2+2+1 cells so far")
		require.Equal(t, a1, p1.assign(3, of(none, keys(5))), "-count runs a family again: same assignment, loads not counted twice")
	})
}

// TestShardCostsMistyped: a sharded run given a -shard-costs directory
// that does not exist fails, naming it, instead of dealing round-robin
// (issue 39: three shards given different costs, two mistyped, all exited
// 0; two cells ran twice and two never ran).
func TestShardCostsMistyped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary (-short)")
	}
	dir := filepath.Join(t.TempDir(), "wohle")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestFirstRunChildTREC$", "-size=fixture", "-shard", "2/3", "-shard-costs", dir)
	cmd.Env = append(os.Environ(), envFirstRunGolden+"="+t.TempDir(), "RETRIEVALBENCH_RESULTS=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a shard with a mistyped -shard-costs passed:\n%s", out)
	require.Contains(t, string(out), "-shard-costs: "+dir+": no such directory")
}
