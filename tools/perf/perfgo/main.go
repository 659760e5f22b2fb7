// Command perfgo is retrievalbench's side of "make perf" (tools/perf/perfrun
// drives it): it exports a data-pack dataset as plain files both sides read,
// and runs this repository's BM25 on them with per-query timings.
//
//	perfgo export -data DIR -dataset vaswani|cosqa|repoqa|sweqa -out DIR
//	perfgo bm25 -in DIR -config porter -k 100 -run RUN [-scorer go|fts5]
//
// export writes docs.jsonl ({"id","symbol","path","text"}: the text FTS5
// indexes, title included), queries.jsonl ({"id","query"}) and qrels.txt
// (doc-level gold; empty for RepoQA, whose gold are needles; for SWE-QA the
// file-level pseudo-qrels, by path: a chunk counts for its file).
//
// bm25 prints one JSON object: index seconds (wall and CPU), each query's
// search milliseconds and the CPU seconds of all searches, and writes the
// ranked results as a TREC run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cosqa"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: perfgo export|bm25 [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "export":
		err = runExport(os.Args[2:])
	case "bm25":
		err = runBM25(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfgo:", err)
		os.Exit(1)
	}
}

// Doc is one line of docs.jsonl.
type Doc struct {
	ID     string `json:"id"`
	Symbol string `json:"symbol,omitempty"`
	Path   string `json:"path,omitempty"`
	Text   string `json:"text"`
}

// Query is one line of queries.jsonl.
type Query struct {
	ID    string `json:"id"`
	Query string `json:"query"`
}

// repoqaCorpus is the RepoQA repository whose chunks make the code corpus
// (the largest of the data pack's ten).
const repoqaCorpus = "pyg-team/pytorch_geometric"

// sweqaRepo is the SWE-QA repository whose chunks make the other code
// corpus: sympy, the largest corpus of the data pack (1,935 files).
const sweqaRepo = "sympy"

func runExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	data := fs.String("data", os.Getenv("RETRIEVALBENCH_DATA"), "data pack directory")
	name := fs.String("dataset", "", "vaswani, cosqa, repoqa or sweqa")
	out := fs.String("out", "", "output directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *out == "" {
		return errors.New("export: -data and -out are required")
	}
	var c *corpus.Corpus
	var tasks []datasets.Task
	switch *name {
	case "vaswani":
		ds, err := trec.Load(*data, "vaswani", trec.DefaultConfig())
		if err != nil {
			return err
		}
		c, tasks = ds.Corpora["vaswani"], ds.Tasks
	case "cosqa":
		cfg := cosqa.DefaultConfig()
		ds, err := cosqa.Load(*data, cfg)
		if err != nil {
			return err
		}
		c, tasks = ds.Corpora[cosqa.CorpusID], ds.Tasks
	case "repoqa":
		ds, err := repoqa.PythonDocstring(*data, datasets.SplitAll, repoqa.DefaultConfig())
		if err != nil {
			return err
		}
		raw := ds.Corpora[repoqaCorpus]
		if raw == nil {
			return fmt.Errorf("export: repoqa has no corpus %q", repoqaCorpus)
		}
		cc, _, err := chunk.Corpus(raw, chunk.DefaultOptions())
		if err != nil {
			return err
		}
		// Every task's query is a realistic code-search query; all of them
		// search this one corpus (gold is not judged here).
		c, tasks = cc, ds.Tasks
	case "sweqa":
		cfg := sweqa.DefaultConfig()
		cfg.Repos = []string{sweqaRepo}
		ds, err := sweqa.Load(*data, cfg)
		if err != nil {
			return err
		}
		if len(ds.Corpora) != 1 {
			return fmt.Errorf("export: swe-qa %s: %d corpora, want 1", sweqaRepo, len(ds.Corpora))
		}
		for _, raw := range ds.Corpora {
			// Chunked as the SWE-QA cells chunk it (harness.Prepare).
			cc, _, err := chunk.Corpus(raw, chunk.DefaultOptions())
			if err != nil {
				return err
			}
			c = cc
		}
		tasks = ds.Tasks
	default:
		return fmt.Errorf("export: unknown dataset %q", *name)
	}
	if c == nil {
		return fmt.Errorf("export: %s: no corpus", *name)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	err := atomicfile.Write(filepath.Join(*out, "docs.jsonl"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, d := range c.Docs {
			text := d.Text
			if d.Title != "" {
				text = d.Title + "\n" + d.Text
			}
			if err := enc.Encode(Doc{ID: d.ID, Symbol: d.Symbol, Path: d.Path, Text: text}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = atomicfile.Write(filepath.Join(*out, "queries.jsonl"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, t := range tasks {
			if err := enc.Encode(Query{ID: t.ID, Query: t.Query}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(*out, "qrels.txt"), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, t := range tasks {
			for _, g := range t.Gold {
				if g.Kind == "doc" || g.Kind == "file" {
					fmt.Fprintf(bw, "%s 0 %s %d\n", t.ID, g.ID, g.Grade)
				}
			}
		}
		return bw.Flush()
	})
}

// readJSONL decodes every line of path into a T.
func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []T
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// BM25Timing is what the bm25 command prints.
type BM25Timing struct {
	Docs      int     `json:"docs"`
	IndexS    float64 `json:"index_s"`
	IndexCPUS float64 `json:"index_cpu_s"` // user+sys of the process while indexing
	// SearchCPUS is the user+sys time of the process over all searches.
	SearchCPUS float64   `json:"search_cpu_s"`
	PerQueryMS []float64 `json:"per_query_ms"`
}

// cpuSeconds is the user+sys time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func runBM25(args []string) error {
	fs := flag.NewFlagSet("bm25", flag.ContinueOnError)
	in := fs.String("in", "", "directory written by export")
	cfgName := fs.String("config", "porter", "bm25 config name")
	k := fs.Int("k", 100, "search depth")
	runPath := fs.String("run", "", "TREC run to write")
	scorer := fs.String("scorer", "go", "go (Index.Search) or fts5 (Index.SearchFTS5, FTS5's bm25())")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of indexing (all -repeat builds) to this file")
	repeat := fs.Int("repeat", 1, "build the index this many times (for -cpuprofile); the timing is the last build's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	docs, err := readJSONL[Doc](filepath.Join(*in, "docs.jsonl"))
	if err != nil {
		return err
	}
	queries, err := readJSONL[Query](filepath.Join(*in, "queries.jsonl"))
	if err != nil {
		return err
	}
	cfg, err := bm25.ConfigByName(*cfgName)
	if err != nil {
		return err
	}
	c := &corpus.Corpus{ID: filepath.Base(*in), Docs: make([]corpus.Doc, len(docs))}
	for i, d := range docs {
		c.Docs[i] = corpus.Doc{ID: d.ID, Symbol: d.Symbol, Path: d.Path, Text: d.Text}
	}
	x, err := bm25.New(cfg, systems.Options{NoCache: true})
	if err != nil {
		return err
	}
	defer x.Close()
	ctx := context.Background()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	var start time.Time
	var cpu0 float64
	for range max(1, *repeat) {
		start, cpu0 = time.Now(), cpuSeconds()
		if err := x.Index(ctx, c); err != nil {
			return err
		}
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	tm := BM25Timing{Docs: len(docs), IndexS: time.Since(start).Seconds(), IndexCPUS: cpuSeconds() - cpu0}
	search := x.Search
	if *scorer == "fts5" {
		search = x.SearchFTS5
	} else if *scorer != "go" {
		return fmt.Errorf("bm25: unknown -scorer %q", *scorer)
	}
	results := make([][]systems.Hit, len(queries))
	cpu0 = cpuSeconds()
	for i, q := range queries {
		t0 := time.Now()
		hits, err := search(ctx, q.Query, *k)
		if err != nil {
			return err
		}
		tm.PerQueryMS = append(tm.PerQueryMS, float64(time.Since(t0).Nanoseconds())/1e6)
		results[i] = hits
	}
	tm.SearchCPUS = cpuSeconds() - cpu0
	if *runPath != "" {
		err := atomicfile.Write(*runPath, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for i, q := range queries {
				for r, h := range results[i] {
					fmt.Fprintf(bw, "%s Q0 %s %d %s ours\n", q.ID, h.DocID, r+1, strconv.FormatFloat(h.Score, 'g', -1, 64))
				}
			}
			return bw.Flush()
		})
		if err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(tm)
}
