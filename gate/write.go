package gate

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Formats lists the formats Write accepts.
var Formats = []string{"text", "csv", "md"}

// ErrFormat is returned by Write for a format not in Formats.
var ErrFormat = errors.New("unknown report format")

// Write prints the report in format "text" (aligned tables, one per
// verdict), "csv" (one row per benchmark and unit, raw numbers) or "md"
// (GitHub-flavoured Markdown, e.g. for a pull-request comment or job
// summary).
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return r.writeText(w)
	case "csv":
		return r.writeCSV(w)
	case "md":
		return r.writeMarkdown(w)
	}
	return fmt.Errorf("%w %q (want one of %s)", ErrFormat, format, strings.Join(Formats, ", "))
}

// Summary is the one-line outcome: "FAIL: 1 regressed, …" or "PASS: …".
func (r *Report) Summary() string {
	outcome := "PASS"
	if r.Failed() {
		outcome = "FAIL"
	}
	parts := make([]string, 0, len(verdictNames))
	for v := range Verdict(len(verdictNames)) {
		parts = append(parts, fmt.Sprintf("%d %s", r.Count(v), v))
	}
	return outcome + ": " + strings.Join(parts, ", ")
}

func (r *Report) header() string {
	return fmt.Sprintf("old %s, new %s; threshold %s, alpha %v", r.OldName, r.NewName, formatPct(r.Config.Threshold), r.Config.Alpha)
}

var tableHeader = []string{"benchmark", "unit", "old", "new", "delta", "ratio CI", "test", "note"}

// cells renders a row for the text and Markdown tables.
func (row *Row) cells() []string {
	return []string{row.Name, row.Unit, row.formatSide(row.Old), row.formatSide(row.New),
		formatDelta(row.Delta), row.formatRatioCI(), row.formatTest(), row.Note}
}

func (r *Report) writeText(w io.Writer) error {
	fmt.Fprintf(w, "gate: %s\n%s\n", r.header(), r.Summary())
	for v := range Verdict(len(verdictNames)) {
		n := r.Count(v)
		if n == 0 {
			fmt.Fprintf(w, "\n%s: none\n", v)
			continue
		}
		fmt.Fprintf(w, "\n%s (%d):\n", v, n)
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+strings.Join(tableHeader, "\t"))
		for i := range r.Rows {
			if r.Rows[i].Verdict == v {
				fmt.Fprintln(tw, "  "+strings.Join(r.Rows[i].cells(), "\t"))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// An empty last column leaves padding behind; drop it so the
		// report survives editors and diff tools that trim lines.
		for line := range strings.Lines(buf.String()) {
			if _, err := fmt.Fprintln(w, strings.TrimRight(line, " \n")); err != nil {
				return err
			}
		}
	}
	return r.writeWarnings(w, "")
}

func (r *Report) writeWarnings(w io.Writer, bullet string) error {
	lines := slices.Clone(r.Warnings)
	for _, row := range r.Rows {
		for _, s := range row.Warnings {
			lines = append(lines, fmt.Sprintf("%s %s: %s", row.Name, row.Unit, s))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nwarnings:")
	for _, s := range lines {
		if bullet == "" {
			fmt.Fprintf(w, "  %s\n", s)
		} else {
			fmt.Fprintf(w, "%s%s\n", bullet, mdEscape(s))
		}
	}
	return nil
}

func (r *Report) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## retrievalbench gate — %s\n\n", r.Summary())
	fmt.Fprintf(w, "old `%s`, new `%s`; threshold %s, alpha %v\n", r.OldName, r.NewName, formatPct(r.Config.Threshold), r.Config.Alpha)
	for v := range Verdict(len(verdictNames)) {
		n := r.Count(v)
		fmt.Fprintf(w, "\n### %s (%d)\n\n", capitalize(v.String()), n)
		if n == 0 {
			fmt.Fprintln(w, "none")
			continue
		}
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(tableHeader, " | "), strings.Repeat("---|", len(tableHeader)))
		for i := range r.Rows {
			if r.Rows[i].Verdict != v {
				continue
			}
			cells := r.Rows[i].cells()
			for j := range cells {
				cells[j] = mdEscape(cells[j])
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	return r.writeWarnings(w, "- ")
}

func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"verdict", "benchmark", "unit", "better", "assume",
		"old_n", "old_center", "old_lo", "old_hi", "new_n", "new_center", "new_lo", "new_hi",
		"delta", "ratio_lo", "ratio_hi", "p", "note"})
	for _, row := range r.Rows {
		assume := "nothing"
		if row.Exact {
			assume = "exact"
		}
		rec := []string{row.Verdict.String(), row.Name, row.Unit, betterWord(row.Better), assume}
		for _, s := range []*Side{row.Old, row.New} {
			if s == nil {
				rec = append(rec, "", "", "", "")
				continue
			}
			rec = append(rec, strconv.Itoa(s.N), csvFloat(s.Center), csvFloat(s.Lo), csvFloat(s.Hi))
		}
		rec = append(rec, csvFloat(row.Delta), csvFloat(row.RatioLo), csvFloat(row.RatioHi), csvFloat(row.P), row.Note)
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

func csvFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// formatSide renders a sample as benchstat does: "1.300m ± 2%" for medians,
// the plain value for exact units.
func (row *Row) formatSide(s *Side) string {
	if s == nil {
		return "-"
	}
	if row.Exact {
		return strconv.FormatFloat(s.Center, 'g', 6, 64)
	}
	c := benchunit.Scale(s.Center, benchunit.ClassOf(row.Unit))
	return c + " ± " + benchmath.Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi}.PctRangeString()
}

func (row *Row) formatRatioCI() string {
	if math.IsNaN(row.RatioLo) || math.IsNaN(row.RatioHi) {
		return ""
	}
	return fmt.Sprintf("[%s, %s]", formatDelta(row.RatioLo-1), formatDelta(row.RatioHi-1))
}

func (row *Row) formatTest() string {
	var n string
	switch {
	case row.Old == nil:
		n = fmt.Sprintf("n=0+%d", row.New.N)
	case row.New == nil:
		n = fmt.Sprintf("n=%d+0", row.Old.N)
	case row.Old.N == row.New.N:
		n = fmt.Sprintf("n=%d", row.Old.N)
	default:
		n = fmt.Sprintf("n=%d+%d", row.Old.N, row.New.N)
	}
	switch {
	case row.Exact && row.Verdict != OneSide:
		return "exact " + n
	case !math.IsNaN(row.P):
		return fmt.Sprintf("p=%.3f %s", row.P, n)
	}
	return n
}

// formatDelta renders a relative change like benchstat: "+30.00%".
func formatDelta(d float64) string {
	switch {
	case math.IsNaN(d):
		return ""
	case math.IsInf(d, 1):
		return "+∞%"
	case math.IsInf(d, -1):
		return "-∞%"
	case d == 0:
		return "0.00%"
	}
	return fmt.Sprintf("%+.2f%%", 100*d)
}

func formatPct(f float64) string {
	if math.IsInf(f, 0) {
		return "∞%"
	}
	return strconv.FormatFloat(100*f, 'g', 4, 64) + "%"
}

func formatExactDiff(d float64) string {
	return strconv.FormatFloat(d, 'g', 6, 64)
}

func mdEscape(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
