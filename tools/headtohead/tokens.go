package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// readGolden reads every golden file under each dir (a golden/DATASET/SPLIT
// folder: SYSTEM/CONFIG.json) as records, one per task with its recorded
// values, in task id order; the main baseline of each file.
func readGolden(dirs []string) ([]resultfmt.Record, error) {
	var recs []resultfmt.Record
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			if _, err := os.Stat(dir); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s: no golden files (SYSTEM/CONFIG.json)", dir)
		}
		slices.Sort(files)
		for _, f := range files {
			g, err := goldenfmt.Read(f)
			if err != nil {
				return nil, err
			}
			for _, id := range slices.Sorted(maps.Keys(g.Tasks)) {
				vals := map[string]float64{}
				for m, v := range g.Tasks[id].Values {
					vals[m] = float64(v)
				}
				recs = append(recs, resultfmt.Record{Dataset: g.Dataset, Split: g.Split, System: g.System, Config: g.Config, Task: id, Values: vals})
			}
		}
	}
	return recs, nil
}

// WriteTokens prints, per dataset and split, what each system/config's
// context costs and is worth at a token budget (docs/judging.md, "Tokens"):
// the mean tokens@10, nDCG@10 and its rank, ndcg_tok and covered_tok at
// every budget, the rank by ndcg_tok@budget, then the systems whose rank
// the budget moves. A system whose records carry no token measures shows
// "–" and is left out of the budget ranking.
func WriteTokens(w io.Writer, recs []resultfmt.Record, budget int) error {
	if !slices.Contains(metrics.Budgets, budget) {
		return fmt.Errorf("-budget %d: not one of the measured budgets %v", budget, metrics.Budgets)
	}
	type dsKey struct{ dataset, split string }
	by := map[dsKey]map[string][]resultfmt.Record{}
	for _, r := range recs {
		k := dsKey{r.Dataset, r.Split}
		if by[k] == nil {
			by[k] = map[string][]resultfmt.Record{}
		}
		by[k][r.Model()] = append(by[k][r.Model()], r)
	}
	at := fmt.Sprintf("ndcg_tok@%d", budget)
	keys := slices.SortedFunc(maps.Keys(by), func(a, b dsKey) int { return strings.Compare(a.dataset+"/"+a.split, b.dataset+"/"+b.split) })
	for _, k := range keys {
		rows := by[k]
		names := slices.Sorted(maps.Keys(rows))
		mean := func(name, m string) float64 {
			var xs []float64
			for _, r := range rows[name] {
				v, ok := r.Values[m]
				if !ok || math.IsNaN(v) {
					return math.NaN()
				}
				xs = append(xs, v)
			}
			return resultfmt.Round4(metrics.Mean(xs))
		}
		// Both ranks are among the systems that have both measures: a
		// composite answer (no nDCG@10) and a cell without token measures
		// are shown, unranked.
		var both []string
		for _, name := range names {
			if !math.IsNaN(mean(name, "ndcg@10")) && !math.IsNaN(mean(name, at)) {
				both = append(both, name)
			}
		}
		rank10, rankB := ranks(both, func(n string) float64 { return mean(n, "ndcg@10") }), ranks(both, func(n string) float64 { return mean(n, at) })
		byBudget := len(both) == 0 // no nDCG@10 at all (a dataset judged at rank 1): the budget alone ranks
		if byBudget {
			rankB = ranks(names, func(n string) float64 { return mean(n, at) })
		}
		rankOf := func(rk map[string]int, name string) string {
			if r, ok := rk[name]; ok {
				return fmt.Sprint(r)
			}
			return "–"
		}
		n := 0
		for _, name := range names {
			n = max(n, len(rows[name]))
		}
		fmt.Fprintf(w, "**%s/%s** (%d tasks; ranks by mean, ties share a rank)\n\n", k.dataset, k.split, n)
		head := "| system/config | tokens@10 | ndcg@10 (rank) |"
		sep := "|---|---|---|"
		for _, b := range metrics.Budgets {
			if b == budget {
				head += fmt.Sprintf(" ndcg_tok@%d (rank) |", b)
			} else {
				head += fmt.Sprintf(" ndcg_tok@%d |", b)
			}
			sep += "---|"
		}
		for _, b := range metrics.Budgets {
			head += fmt.Sprintf(" covered_tok@%d |", b)
			sep += "---|"
		}
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, sep)
		num := func(v float64, f string) string {
			if math.IsNaN(v) {
				return "–"
			}
			return fmt.Sprintf(f, v)
		}
		for _, name := range names {
			line := fmt.Sprintf("| %s | %s | %s (%s) |", name, num(mean(name, "tokens@10"), "%.0f"), num(mean(name, "ndcg@10"), "%.3f"), rankOf(rank10, name))
			for _, b := range metrics.Budgets {
				v := mean(name, fmt.Sprintf("ndcg_tok@%d", b))
				if b == budget && !math.IsNaN(v) {
					line += fmt.Sprintf(" %.3f (%s) |", v, rankOf(rankB, name))
				} else {
					line += " " + num(v, "%.3f") + " |"
				}
			}
			for _, b := range metrics.Budgets {
				line += " " + num(mean(name, fmt.Sprintf("covered_tok@%d", b)), "%.3f") + " |"
			}
			fmt.Fprintln(w, line)
		}
		var moved []string
		for _, name := range slices.SortedFunc(slices.Values(both), func(a, b string) int { return rank10[a] - rank10[b] }) {
			if r := rankB[name]; r != rank10[name] {
				moved = append(moved, fmt.Sprintf("%s %d → %d", name, rank10[name], r))
			}
		}
		if byBudget {
			fmt.Fprintf(w, "\nNo system has nDCG@10 here (answers judged at rank 1 only): ranked by %s alone.\n\n", at)
			continue
		}
		fmt.Fprintf(w, "\nRanked among the %d systems with both measures. ", len(both))
		if len(moved) == 0 {
			fmt.Fprintf(w, "At %d tokens no rank moves.", budget)
		} else {
			fmt.Fprintf(w, "Rank by nDCG@10 → by %s: %s.", at, strings.Join(moved, "; "))
		}
		for _, name := range names {
			if v := mean(name, at); !slices.Contains(both, name) && !math.IsNaN(v) {
				r := 1
				for _, o := range both {
					if mean(o, at) > v {
						r++
					}
				}
				fmt.Fprintf(w, " %s (no nDCG@10: a composite answer) would rank %d by %s.", name, r, at)
			}
		}
		fmt.Fprint(w, "\n\n")
	}
	return nil
}

// ranks ranks names by value, highest first (competition ranking: equal
// values share a rank, the next rank skips); names whose value is NaN are
// left out, and the others ranked among themselves.
func ranks(names []string, value func(string) float64) map[string]int {
	var ok []string
	for _, n := range names {
		if !math.IsNaN(value(n)) {
			ok = append(ok, n)
		}
	}
	out := map[string]int{}
	for _, n := range ok {
		r := 1
		for _, o := range ok {
			if value(o) > value(n) {
				r++
			}
		}
		out[n] = r
	}
	return out
}
