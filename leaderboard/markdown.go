package leaderboard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func f4(v Fixed) string { return strconv.FormatFloat(float64(v), 'f', 4, 64) }

func ms(v Fixed) string { return strconv.FormatFloat(float64(v), 'f', 2, 64) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func stat(s resultfmt.Stat) string {
	return f4(s.Mean) + " [" + f4(s.Low) + ", " + f4(s.High) + "]"
}

// vsBest renders a row's paired test: the difference with its CI, and
// the permutation p (a * marks significance).
func vsBest(r Row, best bool) (diff, p string) {
	switch {
	case best:
		return "best", ""
	case r.VsBest == nil:
		return "—", ""
	}
	v := r.VsBest
	diff = fmt.Sprintf("%+.4f [%+.4f, %+.4f]", float64(v.Diff), float64(v.Low), float64(v.High))
	p = f4(v.PPermutation)
	if v.Significant {
		p += " *"
	}
	return diff, p
}

func indexSeconds(r Row) string {
	if r.Cell == nil {
		return "—"
	}
	return strconv.FormatFloat(r.Cell.IndexSeconds, 'f', 2, 64)
}

func peakRSS(r Row) string {
	if r.Cell == nil || r.Cell.PeakRSSMB == 0 {
		return "—"
	}
	return f1(r.Cell.PeakRSSMB)
}

// cpuClass is the CPU class that ran the row's cell (embedding models round
// differently across classes: docs/portability.md).
func cpuClass(r Row) string {
	if r.Cell == nil || r.Cell.CPUClass == "" {
		return "—"
	}
	return r.Cell.CPUClass
}

// Header names the columns of a dataset table, in order.
func (d *Dataset) Header() []string {
	h := []string{"#", "system/config", "status"}
	h = append(h, d.Measures...)
	return append(h, "Δ "+d.Primary+" vs best [95% CI]", "p (randomization)", "p50 ms", "p95 ms", "index s", "peak RSS MiB", "CPU class")
}

// Cells returns the table cells of row i, aligned with Header.
func (d *Dataset) Cells(i int) []string {
	r := d.Rows[i]
	c := []string{strconv.Itoa(r.Rank), r.Model, status(r)}
	for _, m := range d.Measures {
		s, ok := r.Scores[m]
		if !ok {
			c = append(c, "—") // the system does not record this measure
			continue
		}
		c = append(c, stat(s))
	}
	diff, p := vsBest(r, r.Model == d.Best)
	return append(c, diff, p, ms(r.LatencyP50MS), ms(r.LatencyP95MS), indexSeconds(r), peakRSS(r), cpuClass(r))
}

func status(r Row) string {
	if r.Failed > 0 {
		return fmt.Sprintf("%s (%d failed)", r.Status, r.Failed)
	}
	return r.Status
}

// PlotFiles are the base names of the dataset's figures (each .svg and
// .png under plots/); none when no system has results.
func (d *Dataset) PlotFiles() []string {
	if d.Best == "" {
		return nil
	}
	return d.summary.PlotFiles()
}

// about is the paragraph under a dataset's heading.
func (d *Dataset) about(b *Board) string {
	s := fmt.Sprintf("%d cases, %d systems. Ranked by %s. Scores are micro means with 95%% bootstrap CIs (%d resamples, seed %d); "+
		"Δ is each system's mean minus the best's on %s with the paired bootstrap 95%% CI, p the paired randomization test's "+
		"(* = significant at α = %g). Latency is per query; a failed or missing task scores 0.",
		d.Cases, len(d.Rows), d.Primary, b.Resamples, b.Seed, d.Primary, b.Alpha)
	if !d.Costs {
		s += " Index time and peak RSS: not recorded (the results have no .cell.json files)."
	}
	return s
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func mdRow(cells []string) string {
	for i, c := range cells {
		cells[i] = mdEscape(c)
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// DatasetMarkdown renders the page of one dataset (DIR/KEY/index.md).
func (b *Board) DatasetMarkdown(d *Dataset) string {
	var w strings.Builder
	fmt.Fprintf(&w, "# %s — %s (split %s)\n\n", b.Title, d.Dataset, d.Split)
	w.WriteString(d.about(b) + "\n\n")
	h := d.Header()
	w.WriteString(mdRow(h))
	w.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
	for i := range d.Rows {
		w.WriteString(mdRow(d.Cells(i)))
	}
	w.WriteString("\n")
	if pf := d.PlotFiles(); len(pf) > 0 {
		w.WriteString("## Figures\n\n")
		for _, f := range pf {
			fmt.Fprintf(&w, "![%s](plots/%s.svg) ([PNG](plots/%s.png))\n\n", f, f, f)
		}
	} else {
		w.WriteString("No figures: no system has results.\n\n")
	}
	w.WriteString("[All datasets](../index.md)\n")
	return w.String()
}

// Markdown renders index.md: one line per dataset with its best system,
// linking each dataset's page.
func (b *Board) Markdown() string {
	var w strings.Builder
	fmt.Fprintf(&w, "# %s\n\n", b.Title)
	w.WriteString(b.provenance() + "\n\n")
	w.WriteString(mdRow([]string{"dataset", "split", "cases", "systems", "ranked by", "best", "best score [95% CI]", "page"}))
	w.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, d := range b.Datasets {
		best, score := "— (every system failed)", "—"
		if d.Best != "" {
			best, score = d.Best, stat(d.Rows[0].Scores[d.Primary])
		}
		w.WriteString(mdRow([]string{d.Dataset, d.Split, strconv.Itoa(d.Cases), strconv.Itoa(len(d.Rows)), d.Primary, best, score,
			"[" + d.Key + "](" + d.Key + "/index.md)"}))
	}
	w.WriteString("\nThe same leaderboard in one page, with every table and figure: [index.html](index.html).\n")
	return w.String()
}

func (b *Board) provenance() string {
	var parts []string
	if b.Commit != "" {
		parts = append(parts, "commit "+b.Commit)
	}
	if b.Generated != "" {
		parts = append(parts, "generated "+b.Generated)
	}
	parts = append(parts, fmt.Sprintf("%d datasets", len(b.Datasets)))
	return strings.Join(parts, ", ") + "."
}
