package benchtest

import (
	"sync/atomic"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
)

// TestBenchmarkKeepsBudgets: the benchmarks skip what the cells skip by
// design. A config held to fewer documents than the campaign case fixture
// has is never built; the same config without the budget is built and
// measured.
func TestBenchmarkKeepsBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: runs BM25 benchmarks for about 2 s (-short)")
	}
	cfg, err := bm25.ConfigByName("code")
	if err != nil {
		t.Fatal(err)
	}
	counted := func(config string, maxDocs int, n *atomic.Int32) systems.Spec {
		s := bm25.Spec(cfg)
		s.Config, s.Bench.MaxDocs, s.Bench.MaxDocsReason = config, maxDocs, "test budget"
		newSys := s.New
		s.New = func(opt systems.Options) (systems.System, error) {
			n.Add(1)
			return newSys(opt)
		}
		return s
	}
	var capped, free atomic.Int32
	fixture := catalogue.Cases().Datasets[0]
	suite := Suite{Systems: []systems.Spec{counted("capped", 5, &capped), counted("free", 0, &free)}, Flags: &Flags{Size: SizeFixture}}
	testing.Benchmark(func(b *testing.B) {
		Benchmark(b, suite, catalogue.Family{Name: "cases", Datasets: []catalogue.Dataset{fixture}})
	})
	if capped.Load() != 0 {
		t.Errorf("the config over its budget was built %d times, want 0 (a by-design skip)", capped.Load())
	}
	if free.Load() == 0 {
		t.Error("the config without a budget was never built: the benchmark did not run")
	}
}
