package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/datasets/leakage"
)

const leakageUsage = `usage: retrievalbench leakage [-data DIR] [-split SPLIT] [-json] [-cases FILE -manifest FILE] [family/dataset…]

Reports per dataset how many tasks have their query text, or a span of it of
at least 8 tokens or 50 characters, verbatim (up to white space) in their own
gold and elsewhere in the corpus, and the exact and near-duplicate documents
of its corpora (MinHash over word 5-shingles, Jaccard ≥ 0.8, checked against
exact Jaccard on a seeded sample). See the leakage package for the
definitions. Datasets are the bench's (package datasets/catalogue), named
family/dataset as in its test names (TestCodeRAG/…/humaneval is
coderag/humaneval); the data pack's are read from -data (default
$RETRIEVALBENCH_DATA), the fixtures from the module. -cases adds a case file.

Flags:
`

func runLeakage(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("leakage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir, _ := cache.DataDir()
	dir := fs.String("data", dataDir, "data pack directory")
	split := fs.String("split", datasets.SplitAll, "split of every named dataset: "+strings.Join(datasets.SplitNames(), ", "))
	asJSON := fs.Bool("json", false, "print one JSON report per line instead of summaries")
	casesFile := fs.String("cases", "", "also measure this case file (needs -manifest)")
	manifest := fs.String("manifest", "", "repository manifest of -cases")
	fs.Usage = func() {
		fmt.Fprint(stderr, leakageUsage)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\ndatasets: %s\n", strings.Join(catalogue.Names(), ", "))
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*casesFile == "") != (*manifest == "") {
		return usagef("leakage: -cases and -manifest go together")
	}
	want := fs.Args()
	if len(want) == 0 && *casesFile == "" {
		return badUsage(fs, "leakage: name a dataset or give -cases")
	}
	var sets []catalogue.Dataset
	needData := false
	for _, n := range want {
		_, d, err := catalogue.Lookup(n)
		if err != nil {
			return usagef("leakage: %v", err)
		}
		sets = append(sets, d)
		needData = needData || !d.Hermetic
	}
	if needData && *dir == "" {
		return usagef("leakage: no data pack: set -data or %s", cache.EnvData)
	}
	report := func(ds *datasets.Dataset) error {
		r, err := leakage.Scan(ds, leakage.DefaultConfig())
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
	for i, d := range sets {
		ds, err := d.Load(*dir, *split)
		if err != nil {
			return fmt.Errorf("leakage: %s: %w", want[i], err)
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
