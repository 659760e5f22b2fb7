package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/coderag"
	"github.com/retrievalbench/retrievalbench/datasets/cosqa"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
	"github.com/retrievalbench/retrievalbench/leakage"
)

const leakageUsage = `usage: retrievalbench leakage [-data DIR] [-json] [-cases FILE -manifest FILE] [dataset…]

Reports per dataset how many tasks have their query text, or a span of it of
at least 8 tokens or 50 characters, verbatim (up to white space) in their own
gold and elsewhere in the corpus, and the exact and near-duplicate documents
of its corpora (MinHash over word 5-shingles, Jaccard ≥ 0.8, checked against
exact Jaccard on a seeded sample). See the leakage package for the
definitions. Datasets are read from the data pack (-data, default
$RETRIEVALBENCH_DATA); -cases adds a case file.

Flags:
`

// leakageLoaders are the datasets "leakage" can load by name, over the
// data pack directory.
func leakageLoaders() map[string]func(dir string) (*datasets.Dataset, error) {
	m := map[string]func(string) (*datasets.Dataset, error){
		repoqa.NamePythonDocstring: func(dir string) (*datasets.Dataset, error) {
			return repoqa.PythonDocstring(dir, datasets.SplitAll, repoqa.DefaultConfig())
		},
		repoqa.NamePythonOfficialDesc: func(dir string) (*datasets.Dataset, error) {
			return repoqa.PythonOfficialDesc(dir, datasets.SplitAll, repoqa.DefaultConfig())
		},
		repoqa.NameMini: func(dir string) (*datasets.Dataset, error) {
			return repoqa.Mini(dir, datasets.SplitAll, repoqa.DefaultConfig())
		},
		"cosqa":   func(dir string) (*datasets.Dataset, error) { return cosqa.Load(dir, cosqa.DefaultConfig()) },
		"swe-qa":  func(dir string) (*datasets.Dataset, error) { return sweqa.Load(dir, sweqa.DefaultConfig()) },
		"vaswani": func(dir string) (*datasets.Dataset, error) { return trec.Load(dir, "vaswani", trec.DefaultConfig()) },
	}
	for _, n := range coderag.Names() {
		m[n] = func(dir string) (*datasets.Dataset, error) { return coderag.Load(dir, n, coderag.DefaultConfig()) }
	}
	return m
}

func runLeakage(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("leakage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir, _ := cache.DataDir()
	dir := fs.String("data", dataDir, "data pack directory")
	asJSON := fs.Bool("json", false, "print one JSON report per line instead of summaries")
	casesFile := fs.String("cases", "", "also measure this case file (needs -manifest)")
	manifest := fs.String("manifest", "", "repository manifest of -cases")
	loaders := leakageLoaders()
	var names []string
	for n := range loaders {
		names = append(names, n)
	}
	slices.Sort(names)
	fs.Usage = func() {
		fmt.Fprint(stderr, leakageUsage)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\ndatasets: %s\n", strings.Join(names, ", "))
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*casesFile == "") != (*manifest == "") {
		return usagef("leakage: -cases and -manifest go together")
	}
	want := fs.Args()
	if len(want) == 0 && *casesFile == "" {
		fs.Usage()
		return usagef("leakage: name a dataset or give -cases")
	}
	for _, n := range want {
		if loaders[n] == nil {
			return usagef("leakage: unknown dataset %q (known: %s)", n, strings.Join(names, ", "))
		}
	}
	if len(want) > 0 && *dir == "" {
		return usagef("leakage: no data pack: set -data or %s", cache.EnvData)
	}
	report := func(ds *datasets.Dataset) error {
		r, err := leakage.Measure(ds, leakage.DefaultConfig())
		if err != nil {
			return err
		}
		if *asJSON {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "%s\n", b)
			return err
		}
		_, err = fmt.Fprintln(stdout, r.Summary())
		return err
	}
	for _, n := range want {
		ds, err := loaders[n](*dir)
		if err != nil {
			return fmt.Errorf("leakage: %s: %w", n, err)
		}
		if err := report(ds); err != nil {
			return err
		}
	}
	if *casesFile != "" {
		ds, err := cases.Load(*casesFile, *manifest, cases.DefaultConfig())
		if err != nil {
			return fmt.Errorf("leakage: %w", err)
		}
		return report(ds)
	}
	return nil
}
