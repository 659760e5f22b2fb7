package bench

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/datasets/coderag"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/peers/context7api"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

var flags = benchtest.NewFlags(flag.CommandLine)

const goldenDir = "../golden"

// suite is this repository's benchmark: every built-in system, checked against the
// golden files under golden/.
func suite() benchtest.Suite {
	return benchtest.Suite{Systems: specs(), Golden: goldenDir, Flags: flags, Package: "./bench"}
}

// specs are every built-in system and every peer configured in peers/
// (pydocs-mcp, Codira, Context7's MCP server, …): an external system is a
// JSON file there, not code. A peer that is not installed skips its cells
// with the reason (make peers), or fails them when the run requires peers.
func specs() []systems.Spec {
	out := builtin.Specs()
	cfgs, err := external.LoadDir(peersDir)
	if err != nil {
		panic(fmt.Sprintf("bench: reading the peer configs: %v", err)) // a broken file in the repository
	}
	for _, c := range cfgs {
		out = append(out, external.Spec(c))
	}
	return out
}

const peersDir = "../peers"

// One line per family. Adding a family is adding its lines.
func TestRepoQA(t *testing.T)      { benchtest.Test(t, suite(), catalogue.RepoQA()) }
func TestRepoQALangs(t *testing.T) { benchtest.Test(t, suite(), catalogue.RepoQALangs()) }
func TestSWEQA(t *testing.T)       { benchtest.Test(t, suite(), catalogue.SWEQA()) }
func TestCodeRAG(t *testing.T)     { benchtest.Test(t, suite(), catalogue.CodeRAG()) }
func TestCoSQA(t *testing.T)       { benchtest.Test(t, suite(), catalogue.CoSQA()) }
func TestTREC(t *testing.T)        { benchtest.Test(t, suite(), catalogue.TREC()) }
func TestBEIR(t *testing.T)        { benchtest.Test(t, suite(), catalogue.BEIR()) }
func TestCases(t *testing.T)       { benchtest.Test(t, suite(), catalogue.Cases()) }

func BenchmarkRepoQA(b *testing.B)      { benchtest.Benchmark(b, suite(), catalogue.RepoQA()) }
func BenchmarkRepoQALangs(b *testing.B) { benchtest.Benchmark(b, suite(), catalogue.RepoQALangs()) }
func BenchmarkSWEQA(b *testing.B)       { benchtest.Benchmark(b, suite(), catalogue.SWEQA()) }
func BenchmarkCodeRAG(b *testing.B)     { benchtest.Benchmark(b, suite(), catalogue.CodeRAG()) }
func BenchmarkCoSQA(b *testing.B)       { benchtest.Benchmark(b, suite(), catalogue.CoSQA()) }
func BenchmarkTREC(b *testing.B)        { benchtest.Benchmark(b, suite(), catalogue.TREC()) }
func BenchmarkBEIR(b *testing.B)        { benchtest.Benchmark(b, suite(), catalogue.BEIR()) }
func BenchmarkCases(b *testing.B)       { benchtest.Benchmark(b, suite(), catalogue.Cases()) }

// TestMain fails a whole-suite run (no -run, no -bench, no -update, no -shard) that
// leaves golden files no cell read: a renamed or removed config, or a
// dataset cell that no longer exists, must take its baseline with it.
func TestMain(m *testing.M) {
	flag.Parse()
	stop := startContext7API()
	code := m.Run()
	stop()
	if code != 0 || flags.Update || flags.Shard != "" || flag.Lookup("test.run").Value.String() != "" || flag.Lookup("test.bench").Value.String() != "" || testing.Short() {
		os.Exit(code)
	}
	orphans, err := benchtest.Orphans(goldenDir, specs())
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: checking golden files:", err)
		os.Exit(1)
	}
	if len(orphans) > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d golden files that no cell of this run read (delete them, or restore their cells):\n", len(orphans))
		for _, o := range orphans {
			fmt.Fprintln(os.Stderr, "  "+o)
		}
		fmt.Println("FAIL")
		os.Exit(1)
	}
	os.Exit(code)
}

// startContext7API serves a loopback Context7-compatible API over the
// DS-1000 documentation (peers/context7api) and names it in
// CONTEXT7_API_URL, so the real Context7 MCP server (peers/context7.json)
// runs end to end offline: this measures the adapter and the protocol, not
// Context7's retrieval. Without the data pack there is nothing to serve and
// the Context7 cells skip on the missing variable.
func startContext7API() (stop func()) {
	dir := flags.Data
	if dir == "" {
		var ok bool
		if dir, ok = testenv.DataDir(); !ok {
			return func() {}
		}
	}
	ds, err := coderag.Load(dir, coderag.DS1000, coderag.DefaultConfig())
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: no loopback Context7 API (loading DS-1000 docs: %v)\n", err)
		return func() {}
	}
	var docs []context7api.Doc
	for _, c := range ds.Corpora {
		for _, d := range c.Docs {
			docs = append(docs, context7api.Doc{ID: d.ID, Title: d.Title, Text: d.Text})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	libs, _ := context7api.Group(context7api.DS1000Catalog(), docs)
	srv, err := context7api.New(libs, context7api.DefaultOptions())
	if err == nil {
		var url string
		if url, err = srv.Listen(); err == nil {
			os.Setenv("CONTEXT7_API_URL", url)
			return func() { srv.Close() }
		}
	}
	fmt.Fprintf(os.Stderr, "bench: no loopback Context7 API: %v\n", err)
	return func() {}
}

// TestCaseFile runs every system on your own case file and repositories,
// golden files in a directory you choose (benchtest.TestCaseFile):
//
//	go test ./bench -run 'TestCaseFile/bm25' -cases "$PWD/my/cases.jsonl" -repos "$PWD/my/repos.json" -golden "$PWD/my/golden" -create
func TestCaseFile(t *testing.T) { benchtest.TestCaseFile(t, suite()) }
