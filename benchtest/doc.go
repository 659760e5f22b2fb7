// Package benchtest runs retrievalbench's benchmark matrix from any
// module's tests: a suite of systems (systems.Spec values — a built-in
// config, your own Go system, an external one from systems/external) over
// benchmark families of the dataset catalogue (package datasets/catalogue:
// RepoQA, SWE-QA, CodeRAG, CoSQA, TREC, BEIR, case files), checked against
// golden files in a directory of your repository.
//
// Each (dataset × system × config) is a subtest Family/system/config/dataset,
// so `go test -run 'RepoQA/dense'` selects cells; a quality measure below its
// golden baseline fails that subtest. The Benchmark function runs the same
// cells as testing.B benchmarks (op=index and op=search) for benchstat and
// `retrievalbench gate`.
//
// In a _test.go file of your module:
//
//	var flags = benchtest.NewFlags(flag.CommandLine) // -update, -create, -size, -split, -data, -results, -shard
//
//	func TestRepoQA(t *testing.T) {
//		suite := benchtest.Suite{Systems: []systems.Spec{mySpec}, Golden: "testdata/golden", Flags: flags}
//		benchtest.Test(t, suite, catalogue.RepoQA())
//	}
//
// The first run fails, each cell with the command that creates its
// baseline (`go test -run … -update`), and ends with one command that
// creates every missing one (`go test -run '^(TestA|TestB)$' -create`);
// commit the golden files it writes. The repository's own bench package is
// written the same way; docs/your-module.md walks through a module of your
// own. -shard I/N runs one of N parts of the cells, for a CI matrix
// (docs/sharding.md). TestCaseFile runs your own case file and
// repositories (-cases FILE -repos MANIFEST -golden DIR; CaseFile is its
// family) as the same matrix, with the numbers a campaign of the same
// systems gives.
//
// Test and Benchmark walk one plan per family, a matrix.Plan (the one
// campaigns run too): the cells that exist, their keys (matrix.Key,
// family/system/config/dataset), which the patterns select, which skip by
// design or as unsupported, and the shard each is dealt to
// (matrix.Costs.Deal, by the costs of -shard-costs).
//
// Sizes (-size): fixture runs only the hermetic fixtures shipped with
// retrievalbench; small (the default, what CI runs) adds small splits of the
// data pack; full runs every dataset whole. Golden files live per split
// label, so sizes never share a baseline. Heavy system configs (Spec.Bench.Heavy)
// run at -size=small on the families that allow it (RepoQA) and on the
// fixtures, everywhere at -size=full; their other cells at -size=small skip
// by design with the command that runs them: -heavy runs heavy configs on
// every dataset of the size, against baselines committed for those cells.
// Fixtures-only configs (Spec.Bench.FixturesOnly) run on the fixtures alone at
// -size=small. A config with a corpus budget (Spec.Bench.MaxDocs) skips, by
// design and at every size, datasets with more chunks than that. -heavy
// runs all of these: every cell skipped for its cost.
//
// A system has cells on the datasets its Spec.Bench.Only names (all when
// empty) and on those its Spec.Bench.Unsupported names: an unsupported cell
// skips at once with "SKIP (unsupported): <system/config> <reason>", at every
// size and with -heavy, before anything is required or built; like the
// other by-design skips it is never failed by RETRIEVALBENCH_REQUIRE.
package benchtest
