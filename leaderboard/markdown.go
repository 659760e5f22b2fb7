package leaderboard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func f4(v Fixed) string { return strconv.FormatFloat(float64(v), 'f', 4, 64) }

func ms(v Fixed) string { return strconv.FormatFloat(float64(v), 'f', 2, 64) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func stat(s resultfmt.Stat) string {
	return f4(s.Mean) + " [" + f4(s.Low) + ", " + f4(s.High) + "]"
}

// vsBest renders a row's paired test: the difference with its CI, the
// raw permutation p and the Holm-corrected one (a * marks significance).
func vsBest(r Row, best bool) (diff, p, holm string) {
	switch {
	case best:
		return "best", "", ""
	case r.VsBest == nil:
		return "—", "", ""
	}
	v := r.VsBest
	diff = fmt.Sprintf("%+.4f [%+.4f, %+.4f]", float64(v.Diff), float64(v.Low), float64(v.High))
	holm = f4(v.PHolm)
	if v.Significant {
		holm += " *"
	}
	return diff, f4(v.PPermutation), holm
}

// latency renders a row's query latency, none for a failed row.
func latency(r Row, v Fixed) string {
	if r.Status == campaignfmt.StatusFailed {
		return "—"
	}
	return ms(v)
}

// rank renders a row's rank, none for a failed row.
func rank(r Row) string {
	if r.Rank == 0 {
		return "—"
	}
	return strconv.Itoa(r.Rank)
}

func indexSeconds(r Row) string {
	if r.Cell == nil {
		return "—"
	}
	s := strconv.FormatFloat(r.Cell.IndexSeconds, 'f', 2, 64)
	if r.Cell.IndexReused > 0 {
		// Opening a reused index is not indexing: say so, with what
		// building it took.
		s += fmt.Sprintf(" (%d reused, built in %s)", r.Cell.IndexReused, strconv.FormatFloat(r.Cell.IndexBuildSeconds, 'f', 2, 64))
	}
	return s
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
	h = append(h, "Δ "+d.Primary+" vs best [95% CI]", "p (randomization)", "p Holm")
	return append(h, "p50 ms", "p95 ms", "index s", "peak RSS MiB", "CPU class")
}

// Cells returns the table cells of row i, aligned with Header.
func (d *Dataset) Cells(i int) []string {
	r := d.Rows[i]
	c := []string{rank(r), r.Model, status(r)}
	for _, m := range d.Measures {
		s, ok := r.Scores[m]
		if !ok {
			c = append(c, "—") // the system does not record this measure
			continue
		}
		if isTokenCost(m) {
			c = append(c, tokenStat(s))
			continue
		}
		c = append(c, stat(s))
	}
	diff, p, holm := vsBest(r, r.Model == d.Best)
	c = append(c, diff, p, holm)
	return append(c, latency(r, r.LatencyP50MS), latency(r, r.LatencyP95MS), indexSeconds(r), peakRSS(r), cpuClass(r))
}

func status(r Row) string {
	var notes []string
	if r.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", r.Failed))
	}
	n := r.Warnings
	if r.Cell != nil {
		n += len(r.Cell.Warnings) // indexing's; the records hold the tasks'
	}
	if n > 0 {
		notes = append(notes, fmt.Sprintf("%d warnings", n))
	}
	if len(notes) == 0 {
		return r.Status
	}
	return r.Status + " (" + strings.Join(notes, ", ") + ")"
}

// maxWarnings is how many warnings of one system a dataset page lists.
const maxWarnings = 10

// warningLines are the lines of a dataset's Warnings section: per row,
// its cell's indexing warnings and its records' (at most maxWarnings).
func (d *Dataset) warningLines() []string {
	var lines []string
	for _, r := range d.Rows {
		var ws []string
		if r.Cell != nil {
			for _, x := range r.Cell.Warnings {
				ws = append(ws, "index: "+x)
			}
		}
		ws = append(ws, d.summary.SystemWarnings(r.Model)...)
		for i, x := range ws {
			if i == maxWarnings {
				lines = append(lines, fmt.Sprintf("%s: … and %d more (in its records and cell file)", r.Model, len(ws)-maxWarnings))
				break
			}
			lines = append(lines, r.Model+" "+x)
		}
	}
	return lines
}

// warningsMD is the Warnings section of a dataset page, "" when no system
// noticed anything.
func (d *Dataset) warningsMD() string {
	lines := d.warningLines()
	if len(lines) == 0 {
		return ""
	}
	var w strings.Builder
	w.WriteString("## Warnings\n\nWhat systems noticed without failing a task.\n\n")
	for _, l := range lines {
		w.WriteString("- " + mdEscape(l) + "\n")
	}
	return w.String() + "\n"
}

// PlotFiles are the base names of the dataset's figures (each .svg and
// .png under plots/); none when no system has results or none are drawn.
func (d *Dataset) PlotFiles() []string {
	if d.Best == "" || d.undrawn {
		return nil
	}
	return d.summary.PlotFiles()
}

// about is the paragraph under a dataset's heading.
func (d *Dataset) about(b *Board) string {
	s := fmt.Sprintf("%d cases, %d systems. Ranked by %s. Scores are micro means with 95%% bootstrap CIs (%d resamples, seed %d); "+
		"Δ is each system's mean minus the best's on %s with the paired bootstrap 95%% CI, p the paired randomization test's, "+
		"p Holm that p corrected with Holm's procedure for the number of systems compared with the best (* = significant at α = %g). "+
		"Latency is per query; a failed or missing task scores 0; a system whose every task failed is listed last, unranked, without scores or latency.",
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
	w.WriteString(d.tokensMD())
	w.WriteString(d.modelsMD())
	w.WriteString(d.warningsMD())
	if pf := d.PlotFiles(); len(pf) > 0 {
		w.WriteString("## Figures\n\n")
		for _, f := range pf {
			fmt.Fprintf(&w, "![%s](plots/%s.svg) ([PNG](plots/%s.png))\n\n", f, f, f)
		}
	} else if d.undrawn {
		w.WriteString("No figures: written without them (`retrievalbench leaderboard` draws them).\n\n")
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
	for _, t := range b.Languages {
		fmt.Fprintf(&w, "\n## %s across languages (split %s)\n\n%s\n\n", t.Title, t.Split, t.about(b))
		h := t.Header()
		w.WriteString(mdRow(h))
		w.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
		for i := range t.Rows {
			w.WriteString(mdRow(t.Cells(i)))
		}
	}
	w.WriteString(b.modelsIndexMD())
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
