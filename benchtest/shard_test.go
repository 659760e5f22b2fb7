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
	none := matrix.Costs{}
	assign := func(p *planner, n int, ks []matrix.Key, c matrix.Costs) assignment {
		t.Helper()
		a, err := p.assign(n, ks, c)
		require.NoError(t, err)
		return a
	}
	t.Run("round-robin without costs", func(t *testing.T) {
		var p planner
		got := assign(&p, 3, keys(7), none)
		want := assignment{}
		for i, k := range keys(7) {
			want[k] = i%3 + 1
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cells of equal cost are dealt in key order (-want +got):\n%s", diff)
		}
	})
	t.Run("balanced by cost", func(t *testing.T) {
		var p planner
		costs := matrix.Costs{Dirs: []string{"prev"}, Seconds: map[matrix.Key]float64{}}
		for i, c := range []float64{10, 7, 5, 4, 3, 1} {
			costs.Seconds[keys(6)[i]] = c
		}
		got := assign(&p, 2, keys(6), costs)
		load := map[int]float64{}
		for k, s := range got {
			load[s] += costs.Seconds[k]
		}
		require.Equal(t, map[int]float64{1: 15, 2: 15}, load, "longest first, each to the least loaded shard: 10+4+1 and 7+5+3")
	})
	t.Run("unknown cells cost the mean", func(t *testing.T) {
		k := keys(3)
		c, matched := matrix.Costs{Seconds: map[matrix.Key]float64{k[0]: 2, k[1]: 4}}.Cells(k)
		require.Equal(t, 2, matched)
		require.Equal(t, []shard.Cell{{Name: k[0].String(), Cost: 2}, {Name: k[1].String(), Cost: 4}, {Name: k[2].String(), Cost: 3}}, c)
	})
	t.Run("costs that record none of the cells", func(t *testing.T) {
		var p planner
		other := matrix.Costs{Dirs: []string{"other-run"}, Seconds: map[matrix.Key]float64{{Family: "trec", System: "bm25", Config: "porter", Dataset: "fixture"}: 3}}
		a, err := p.assign(3, keys(4), other)
		require.ErrorContains(t, err, "other-run records the cost of 1 cells, none of this run's 4")
		require.Len(t, a, 4, "dealt all the same, round-robin")
	})
	t.Run("deterministic and repeatable", func(t *testing.T) {
		var p1, p2 planner
		a1 := assign(&p1, 3, keys(5), none)
		b1 := assign(&p1, 3, keys(4)[:2], none) // the next family carries the loads on
		a2 := assign(&p2, 3, keys(5), none)
		b2 := assign(&p2, 3, keys(4)[:2], none)
		require.Equal(t, a1, a2)
		require.Equal(t, b1, b2)
		require.Equal(t, assignment{keys(2)[0]: 3, keys(2)[1]: 1}, b1, "the second family starts at the least loaded shards: 2+2+1 cells so far")
		require.Equal(t, a1, assign(&p1, 3, keys(5), none), "-count runs a family again: same assignment, loads not counted twice")
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
