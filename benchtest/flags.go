package benchtest

import (
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/tokens"
)

// Sizes accepted by -size.
const (
	SizeFixture = "fixture" // hermetic fixtures only
	SizeSmall   = "small"   // fixtures + small splits of the data pack (CI)
	SizeFull    = "full"    // whole data-pack datasets
)

// Flags are the command-line switches of a benchmark test binary.
type Flags struct {
	Update  bool   // rewrite golden files from this run instead of comparing (never in CI)
	Size    string // SizeFixture, SizeSmall or SizeFull
	Split   string // split of data-pack datasets ("" = the size's default)
	Data    string // data pack directory ("" = $RETRIEVALBENCH_DATA, then the default data directory)
	Results string // if set, per-task JSONL results of every cell go here
	// Heavy runs heavy configs (Spec.Bench.Heavy) on every dataset of the size:
	// at -size=small they otherwise run on the fixtures and the families
	// that allow them (RepoQA) only, and their other cells — baselines
	// committed — skip by design. It also runs fixtures-only configs
	// (Spec.Bench.FixturesOnly) at the size and lifts every corpus budget
	// (Spec.Bench.MaxDocs): every cell skipped for its cost runs.
	Heavy bool
	// Slow multiplies the run's task timeout and abandon wait, for a CPU
	// emulated by qemu-user (make test-avx2: 10-50× slower; 0 or 1: as
	// configured).
	Slow int
	// Create writes the golden file of every cell that has none, from this
	// run, and checks the cells that have one as usual: the one command a
	// first run (or a new system or dataset) prints for all its missing
	// baselines. Unlike Update it never rewrites a baseline.
	Create bool
	// Shard is "I/N": run only this run's I-th of N parts of the cells
	// (see Shard); "" runs them all. ShardCosts is a previous run's results
	// directory whose cell files' wall times balance the parts.
	Shard      string
	ShardCosts string
	// Cases, Repos and Golden run a user's own case file (TestCaseFile):
	// the case file, the manifest of its repositories, and the directory of
	// its golden files ("": golden/ next to the case file).
	Cases, Repos, Golden string
	// Tokenizer counts the tokens of every hit for the token measures
	// (docs/judging.md, "Tokens"): a pinned tokenizer's name (package
	// tokens; "" means tokens.Default), a tokenizer.json path, or "none".
	Tokenizer string
}

// EnvResults is the default of -results, so that a run of several packages
// (make test's go test ./...) can write the bench's per-task results.
const EnvResults = "RETRIEVALBENCH_RESULTS"

// DefaultFlags is what a Suite without Flags runs with.
func DefaultFlags() *Flags { return &Flags{Size: SizeSmall, Tokenizer: tokens.Default} }

// NewFlags defines -update, -create, -size, -split, -data, -results, -heavy, -slow, -shard,
// -shard-costs, -cases, -repos and -golden on fs and
// returns the Flags they fill when the test binary parses its flags. Call it
// once per test binary, from a package-level var.
func NewFlags(fs *flag.FlagSet) *Flags {
	f := DefaultFlags()
	fs.BoolVar(&f.Update, "update", false, "rewrite golden files from this run instead of comparing (never in CI)")
	fs.StringVar(&f.Size, "size", SizeSmall, "which datasets run: fixture (hermetic fixtures only), small (fixtures + small splits of the data pack), full (whole data-pack datasets)")
	fs.StringVar(&f.Split, "split", "", "split of data-pack datasets: all, dev, test, small_dev, small_test (default: \"small\" — the test split of a few small repositories — for -size=small, all for -size=full)")
	fs.StringVar(&f.Data, "data", "", "data pack directory (default $"+testenv.EnvData+")")
	fs.StringVar(&f.Results, "results", os.Getenv(EnvResults), "if set, write per-task JSONL results of every cell into this directory (default $"+EnvResults+")")
	fs.BoolVar(&f.Heavy, "heavy", false, "run heavy configs (slow embedding models, slow external peers) on every dataset of this size, not only on the fixtures and RepoQA, fixtures-only configs too, and lift corpus budgets (Spec.Bench.MaxDocs): every cell skipped by design for its cost, against its committed baseline")
	fs.IntVar(&f.Slow, "slow", 1, "multiply the per-task search timeout by this, for an emulated CPU (qemu-x86_64 -cpu Haswell: make test-avx2 passes 20)")
	fs.BoolVar(&f.Create, "create", false, "write the golden file of every cell that has none (cells that have one are checked as usual; unlike -update, no baseline is rewritten)")
	fs.StringVar(&f.Shard, "shard", "", "run only part `I/N` of the cells (1 ≤ I ≤ N; every part with the same other flags), for a CI matrix; merge the parts' -results with retrievalbench leaderboard -results A,B,…")
	fs.StringVar(&f.Tokenizer, "tokenizer", tokens.Default, "count the tokens of every hit with this tokenizer for the token measures (tokens@10, covered_tok@B, ndcg_tok@B): a pinned one's `name` (qwen3, fetched by make tokenizer), a tokenizer.json path, or none")
	fs.StringVar(&f.ShardCosts, "shard-costs", "", "a previous run's results `dir`: balance -shard by its cells' recorded wall times (default: round-robin; a missing dir, or one without cell files, fails)")
	fs.StringVar(&f.Cases, "cases", "", "run TestCaseFile on this case `file` (JSONL, the format of retrievalbench campaign -cases; an absolute path: go test runs in the package directory)")
	fs.StringVar(&f.Repos, "repos", "", "the repository `manifest` of -cases (JSON, as retrievalbench campaign -repos)")
	fs.StringVar(&f.Golden, "golden", "", "the golden files' `dir` of -cases (default: golden/ next to the case file)")
	return f
}

func (f *Flags) check() error {
	switch f.Size {
	case SizeFixture, SizeSmall, SizeFull:
		return nil
	}
	return fmt.Errorf("-size=%q: want fixture, small or full", f.Size)
}

// hint returns the flags that select this run's size and split again, for
// the commands printed in failure messages.
func (f *Flags) hint() string {
	s := ""
	if f.Size != SizeSmall {
		s += " -size=" + f.Size
	}
	if f.Split != "" {
		s += " -split=" + f.Split
	}
	if f.Heavy {
		s += " -heavy"
	}
	if f.Cases != "" {
		s += fmt.Sprintf(" -cases %q -repos %q", f.Cases, f.Repos)
		if f.Golden != "" {
			s += fmt.Sprintf(" -golden %q", f.Golden)
		}
	}
	return s
}

// loadTokenizer loads the tokenizer named name once per test binary (nil
// for "none").
func loadTokenizer(name string) (*tokens.Tokenizer, error) {
	if name == "" {
		name = tokens.Default
	}
	if name == tokens.None {
		return nil, nil
	}
	tokenizersMu.Lock()
	defer tokenizersMu.Unlock()
	if l, ok := tokenizers[name]; ok {
		return l.t, l.err
	}
	t, err := tokens.Load(testenv.CacheDir(), name)
	tokenizers[name] = loadedTokenizer{t, err}
	return t, err
}

type loadedTokenizer struct {
	t   *tokens.Tokenizer
	err error
}

var (
	tokenizersMu sync.Mutex
	tokenizers   = map[string]loadedTokenizer{}
)
