package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/datasets/fetch"
)

// dataDefaultDir is where "data fetch" writes and "data ls" looks: the
// cache's data directory, which the loaders accept like the data pack and
// the tests use when RETRIEVALBENCH_DATA is unset.
func dataDefaultDir() string { return cache.DefaultDataDir() }

// runData implements "retrievalbench data fetch|ls".
func runData(args []string, stdout, stderr io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: retrievalbench data fetch [-dir DIR] [-mirror DIR] [name…]\n       retrievalbench data ls [-dir DIR]\n\n"+
			"fetch fills DIR (default %s) with the datasets, checked against pinned sha256;\n"+
			"ls lists what DIR holds. go test uses the same directory when %s is unset.\n"+
			"Run \"retrievalbench data fetch -h\" for the flags of fetch.\n", dataDefaultDir(), cache.EnvData)
	}
	if len(args) == 0 {
		usage(stderr)
		return usagef("data: no subcommand (fetch, ls)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	case "fetch":
		return runDataFetch(args[1:], stdout, stderr)
	case "ls":
		return runDataLs(args[1:], stdout, stderr)
	}
	return usagef("data: unknown subcommand %q (fetch, ls)", args[0])
}

func runDataFetch(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data fetch", fmt.Sprintf("usage: retrievalbench data fetch [flags] [name…]\n\nnames: %v (default: all)\n\nflags:\n", fetch.Names()), stderr)
	dir := fs.String("dir", dataDefaultDir(), "data directory to fill")
	mirror := fs.String("mirror", "", "copy from this offline mirror (data pack layout with SHA256SUMS) instead of downloading")
	base := fs.String("base-url", fetch.DefaultBaseURL, "prefix of the source file URLs")
	archives := fs.String("archive-base-url", fetch.DefaultArchiveBaseURL, "prefix of the repository source archives that generated corpora are built from")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := fs.Args()
	if len(names) == 0 {
		names = fetch.Names()
	}
	known := map[string]bool{}
	for _, n := range fetch.Names() {
		known[n] = true
	}
	for _, n := range names {
		if !known[n] {
			return usagef("data fetch: unknown dataset %q (known: %v)", n, fetch.Names())
		}
	}
	cfg := fetch.DefaultConfig()
	cfg.BaseURL = *base
	cfg.ArchiveBaseURL = *archives
	cfg.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	for _, n := range names {
		var rep fetch.Report
		var err error
		if *mirror != "" {
			rep, err = fetch.CopyMirror(n, *mirror, *dir)
		} else {
			rep, err = fetch.Download(context.Background(), n, *dir, cfg)
		}
		if err != nil {
			return fmt.Errorf("data fetch %s: %w", n, err)
		}
		fmt.Fprintf(stdout, "%s: %d fetched, %d already present", n, len(rep.Fetched), len(rep.Present))
		if len(rep.MirrorOnly) > 0 {
			fmt.Fprintf(stdout, ", %d mirror-only (no original source: use -mirror)", len(rep.MirrorOnly))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "data directory: %s\n", *dir)
	return nil
}

func runDataLs(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("data ls", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", dataDefaultDir(), "data directory to list (the cache's, or a data pack)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("data ls: unexpected arguments %v", fs.Args())
	}
	entries, err := fetch.List(*dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "size\tsha256\tstatus\tpath\t")
	var total int64
	bad := 0
	for _, e := range entries {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", e.Size, e.SHA256, e.Status, e.Path)
		total += e.Size
		if e.Status == "MISMATCH" {
			bad++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d files, %d bytes in %s\n", len(entries), total, *dir)
	if bad > 0 {
		return fmt.Errorf("data ls: %d files differ from their pinned sha256", bad)
	}
	return nil
}
