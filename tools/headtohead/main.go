// Command headtohead prints the head-to-head tables of docs/peers.md from
// the results directories of `go test ./bench -results DIR`: per dataset
// and split, every system/config with hit@1 and nDCG@10 (95% bootstrap
// CIs), the paired randomization test of nDCG@10 against the best built-in
// system, p50 query latency, index time and peak RSS (from the cell files).
//
//	go run ./tools/headtohead -results DIR[,DIR…] [-warm DIR,…] [-builtin bm25,dense,hybrid,graph,static]
//	go run ./tools/headtohead -tokens [-budget 2000] -golden golden/swe-qa/small,… | -results DIR,…
//
// A cell present in several directories is taken from the first that has
// it, so a cold run of the slow cells can be listed before a run of the rest.
// Index times of the cells from a -warm directory (a run whose cache held
// the indexes already) are marked "(reused)".
//
// -tokens prints instead what each system's context costs and is worth at a
// token budget (WriteTokens), from results or from committed golden files
// (-golden: their per-task values).
package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "headtohead:", err)
		os.Exit(1)
	}
}

// Options of a table.
type Options struct {
	Builtin []string // system names that count as built-in
	Primary string   // the paired-tested measure
	Rounds  int      // randomization rounds
	Seed    uint64
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("headtohead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	warm := fs.String("warm", "", "comma-separated results `dirs` (also in -results) whose index times were measured on a warm cache")
	results := fs.String("results", "", "comma-separated results `dirs` (records and .cell.json files); a cell is taken from the first that has it")
	builtin := fs.String("builtin", "bm25,dense,hybrid,graph,static", "comma-separated `systems` that are built in (the reference of the paired test)")
	opt := Options{Primary: "ndcg@10"}
	fs.IntVar(&opt.Rounds, "rounds", 10000, "paired randomization test `rounds`")
	fs.Uint64Var(&opt.Seed, "seed", 1, "randomization test `seed`")
	tokensMode := fs.Bool("tokens", false, "print tokens@10 and quality at each token budget instead, with the ranks at -budget")
	budget := fs.Int("budget", 2000, "the token `budget` whose ndcg_tok ranks the systems against nDCG@10 (-tokens)")
	golden := fs.String("golden", "", "comma-separated golden `dirs` (golden/DATASET/SPLIT) to read instead of -results (-tokens)")
	only := fs.String("systems", "", "comma-separated `systems` or system/configs to show (-tokens; default: every one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tokensMode && *golden != "" && *results == "" && fs.NArg() == 0 {
		recs, err := readGolden(strings.Split(*golden, ","))
		if err != nil {
			return err
		}
		return WriteTokens(stdout, onlySystems(recs, *only), *budget)
	}
	if *golden != "" {
		return fmt.Errorf("-golden goes with -tokens, instead of -results")
	}
	if *results == "" || fs.NArg() != 0 {
		return fmt.Errorf("need -results DIR[,DIR…] and no arguments")
	}
	opt.Builtin = strings.Split(*builtin, ",")
	var recs []resultfmt.Record
	var cells []resultfmt.Cell
	have := map[string]bool{}
	warmDirs := strings.Split(*warm, ",")
	for _, dir := range strings.Split(*results, ",") {
		rs, err := resultfmt.ReadRecords(dir)
		if err != nil {
			return err
		}
		cs, err := resultfmt.ReadCells(dir)
		if err != nil {
			return err
		}
		mine := map[string]bool{}
		for _, r := range rs {
			k := key(r.Dataset, r.Split, r.Model())
			if !have[k] {
				mine[k] = true
				recs = append(recs, r)
			}
		}
		for _, c := range cs {
			if k := key(c.Dataset, c.Split, c.Model()); mine[k] {
				if slices.Contains(warmDirs, dir) {
					c.Commit = reusedMark
				}
				cells = append(cells, c)
			}
		}
		maps.Copy(have, mine)
	}
	if *tokensMode {
		return WriteTokens(stdout, onlySystems(recs, *only), *budget)
	}
	return Write(stdout, recs, cells, opt)
}

// reusedMark flags a cell of a -warm directory (in its Commit field, which
// the tables do not show otherwise).
const reusedMark = "\x00reused"

func key(dataset, split, model string) string { return dataset + "\x00" + split + "\x00" + model }

// row is one system/config on one dataset.
type row struct {
	model       string
	order       []string // task ids in the records' order (the harness's, as golden CIs resample them)
	tasks       map[string]resultfmt.Record
	hit1, ndcg  metrics.CI
	p50         float64
	cell        *resultfmt.Cell
	diff, p     float64
	best, peers bool
}

// Write prints one table per dataset and split.
func Write(w io.Writer, recs []resultfmt.Record, cells []resultfmt.Cell, opt Options) error {
	type dsKey struct{ dataset, split string }
	by := map[dsKey]map[string]*row{}
	for _, r := range recs {
		k := dsKey{r.Dataset, r.Split}
		if by[k] == nil {
			by[k] = map[string]*row{}
		}
		rw := by[k][r.Model()]
		if rw == nil {
			rw = &row{model: r.Model(), tasks: map[string]resultfmt.Record{}}
			by[k][r.Model()] = rw
		}
		if _, dup := rw.tasks[r.Task]; dup {
			return fmt.Errorf("%s/%s %s: task %s twice", r.Dataset, r.Split, r.Model(), r.Task)
		}
		rw.tasks[r.Task] = r
		rw.order = append(rw.order, r.Task)
	}
	for i := range cells {
		c := &cells[i]
		if rw := by[dsKey{c.Dataset, c.Split}][c.Model()]; rw != nil {
			rw.cell = c
		}
	}
	keys := slices.SortedFunc(maps.Keys(by), func(a, b dsKey) int { return strings.Compare(a.dataset+"/"+a.split, b.dataset+"/"+b.split) })
	for _, k := range keys {
		rows := by[k]
		names := slices.Sorted(maps.Keys(rows))
		var best *row
		n := 0
		for _, name := range names {
			rw := rows[name]
			n = max(n, len(rw.tasks))
			rw.hit1 = ci(rw, "hit@1")
			rw.ndcg = ci(rw, opt.Primary)
			rw.p50 = p50(rw)
			if slices.Contains(opt.Builtin, strings.SplitN(name, "/", 2)[0]) {
				if best == nil || rw.ndcg.Mean > best.ndcg.Mean {
					best = rw
				}
			} else {
				rw.peers = true
			}
		}
		bestName := "none"
		if best != nil {
			best.best = true
			bestName = best.model
			for _, name := range names {
				rw := rows[name]
				if rw == best {
					continue
				}
				a, b := paired(best, rw, opt.Primary)
				rw.diff = metrics.Mean(b) - metrics.Mean(a)
				rw.p = metrics.Permutation(a, b, opt.Rounds, opt.Seed)
			}
		}
		fmt.Fprintf(w, "**%s/%s** (%d tasks; best built-in on %s: %s)\n\n", k.dataset, k.split, n, opt.Primary, bestName)
		fmt.Fprintf(w, "| system/config | hit@1 [95%% CI] | %s [95%% CI] | Δ vs best built-in | p (paired randomization) | p50 query ms | index s | peak RSS MiB |\n", opt.Primary)
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		for _, name := range names {
			rw := rows[name]
			vs, p := fmt.Sprintf("%+.3f", rw.diff), fmt.Sprintf("%.3f", rw.p)
			if rw.best || best == nil {
				vs, p = "—", "—"
			}
			index, peak := "–", "–"
			if rw.cell != nil {
				index = fmt.Sprintf("%.1f", rw.cell.IndexSeconds)
				if rw.cell.Commit == reusedMark {
					index += " (reused)"
				}
				if rw.cell.PeakRSSMB > 0 {
					peak = fmt.Sprintf("%.0f", rw.cell.PeakRSSMB)
				}
			}
			label := rw.model
			if rw.peers {
				label = "**" + label + "**"
			}
			fmt.Fprintf(w, "| %s | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %s | %s | %.1f | %s | %s |\n", label,
				rw.hit1.Mean, rw.hit1.Low, rw.hit1.High, rw.ndcg.Mean, rw.ndcg.Low, rw.ndcg.High, vs, p, rw.p50, index, peak)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// column returns the row's values of measure m in the records' order, so
// that the bootstrap CIs are those of the golden files.
func column(rw *row, m string) []float64 {
	out := make([]float64, 0, len(rw.order))
	for _, id := range rw.order {
		out = append(out, rw.tasks[id].Values[m])
	}
	return out
}

func ci(rw *row, m string) metrics.CI {
	return metrics.DefaultStats().CI(column(rw, m))
}

// paired returns the values of m of the tasks both rows ran, in a's order.
func paired(a, b *row, m string) (xs, ys []float64) {
	for _, id := range a.order {
		if rb, ok := b.tasks[id]; ok {
			xs = append(xs, a.tasks[id].Values[m])
			ys = append(ys, rb.Values[m])
		}
	}
	return xs, ys
}

// p50 is the median query latency in ms (the mean of the two middle
// values for an even count).
func p50(rw *row) float64 {
	var ls []float64
	for _, r := range rw.tasks {
		ls = append(ls, r.LatencyMS)
	}
	if len(ls) == 0 {
		return 0
	}
	sort.Float64s(ls)
	n := len(ls)
	if n%2 == 1 {
		return ls[n/2]
	}
	return (ls[n/2-1] + ls[n/2]) / 2
}

// onlySystems keeps the records of the comma-separated systems or
// system/configs ("" keeps every one).
func onlySystems(recs []resultfmt.Record, systems string) []resultfmt.Record {
	if systems == "" {
		return recs
	}
	keep := strings.Split(systems, ",")
	var out []resultfmt.Record
	for _, r := range recs {
		if slices.Contains(keep, r.System) || slices.Contains(keep, r.Model()) {
			out = append(out, r)
		}
	}
	return out
}
