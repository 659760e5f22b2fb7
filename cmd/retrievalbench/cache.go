package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retrievalbench/retrievalbench/cache"
)

const cacheUsage = `usage: retrievalbench cache info [-cache DIR] [-json]
       retrievalbench cache evict [-cache DIR] [-kind K,…] [-older-than AGE] [-all] [-dry-run]

info lists what the cache holds, one entry per index, vector store, model,
runtime, peer tool, external-system index or dataset: kind, size (apparent
bytes), files, last use (newest access or modification time of its files;
access times are as the filesystem keeps them, about a day exact under
relatime) and last write (newest modification time).

evict removes whole entries: of the given kinds, not used for more than AGE
(30d, 2w, 12h), or all. Each entry is renamed out of the way before it is
deleted, so no run sees half an entry; run it when no benchmark is running
(a running one may rebuild, skip or fail a cell; see package cache).

kinds: ` + "onnxruntime, models, bm25, vectors, external, peers, data, other, trash\n"

// runCache is "retrievalbench cache info|evict".
func runCache(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "info" && args[0] != "evict") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, cacheUsage)
			return nil
		}
		fmt.Fprint(stderr, cacheUsage)
		return usagef("cache: want info or evict")
	}
	sub := args[0]
	fs := newFlagSet("cache "+sub, cacheUsage+"\nflags:\n", stderr)
	root := fs.String("cache", cache.Dir(), "cache root `dir` ($"+cache.EnvDir+")")
	asJSON := fs.Bool("json", false, "info: write the entries as JSON")
	kinds := fs.String("kind", "", "evict: comma-separated `kinds` to evict")
	older := fs.String("older-than", "", "evict: entries not used for more than `age` (30d, 2w, 12h)")
	all := fs.Bool("all", false, "evict: every entry")
	dry := fs.Bool("dry-run", false, "evict: list what would go, remove nothing")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("cache %s: unexpected arguments %q", sub, fs.Args())
	}
	if sub == "info" {
		if *kinds != "" || *older != "" || *all || *dry {
			return usagef("cache info: -kind, -older-than, -all and -dry-run are evict flags")
		}
		es, err := cache.Scan(*root)
		if err != nil {
			return fmt.Errorf("cache info: %w", err)
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if es == nil {
				es = []cache.Entry{}
			}
			return enc.Encode(es)
		}
		writeCacheTable(stdout, *root, es, time.Now())
		return nil
	}
	if *asJSON {
		return usagef("cache evict: -json is an info flag")
	}
	sel := cache.Selector{All: *all, Now: time.Now()}
	if *kinds != "" {
		sel.Kinds = strings.Split(*kinds, ",")
	}
	if *older != "" {
		d, err := cache.ParseAge(*older)
		if err != nil {
			return usagef("cache evict: -older-than: %v", err)
		}
		if d == 0 {
			return usagef("cache evict: -older-than must be positive")
		}
		sel.OlderThan = d
	}
	if err := sel.Validate(); err != nil {
		return usagef("cache evict: %v", err)
	}
	es, err := cache.Scan(*root)
	if err != nil {
		return fmt.Errorf("cache evict: %w", err)
	}
	chosen := sel.Select(es)
	verb := "evicted"
	if *dry {
		verb = "would evict"
	}
	var total int64
	for _, e := range chosen {
		fmt.Fprintf(stdout, "%s %s %s (%s, last use %s)\n", verb, e.Kind, e.Path, humanBytes(e.Bytes), age(sel.Now, e.LastUse()))
		total += e.Bytes
	}
	if *dry {
		fmt.Fprintf(stdout, "dry run: %d of %d entries, %s, would be evicted from %s\n", len(chosen), len(es), humanBytes(total), *root)
		return nil
	}
	freed, err := cache.Evict(*root, chosen)
	if err != nil {
		return fmt.Errorf("cache evict: %w", err)
	}
	fmt.Fprintf(stdout, "evicted %d of %d entries, %s freed from %s\n", len(chosen), len(es), humanBytes(freed), *root)
	return nil
}

func writeCacheTable(w io.Writer, root string, es []cache.Entry, now time.Time) {
	fmt.Fprintf(w, "cache %s: %d entries\n", root, len(es))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tentry\tsize\tfiles\tlast use\tlast write\t")
	byKind := map[string]int64{}
	var total int64
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t\n", e.Kind, e.Path, humanBytes(e.Bytes), e.Files, age(now, e.LastUse()), age(now, e.Modified))
		byKind[e.Kind] += e.Bytes
		total += e.Bytes
	}
	tw.Flush()
	var parts []string
	for _, k := range cache.Kinds() {
		if n, ok := byKind[k]; ok {
			parts = append(parts, k+" "+humanBytes(n))
		}
	}
	fmt.Fprintf(w, "total %s", humanBytes(total))
	if len(parts) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, "\nlast use = newest access or modification time of the entry's files (atime as the filesystem keeps it)")
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// age prints how long before now t was, in the largest whole unit.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
