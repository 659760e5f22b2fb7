// Package benchstat prints benchstat's comparison tables from Go benchmark
// files, for `retrievalbench compare`: the same output as
// golang.org/x/perf/cmd/benchstat at the version in go.mod, so that a
// user's module needs no second tool.
//
// The statistics, filters and projections are x/perf's libraries
// (benchfmt, benchproc, benchmath, benchunit). The table layer, which x/perf
// keeps internal to its command, is copied unchanged into benchtab and
// texttab (BSD licence, in LICENSE here; only texttab's import path
// changed). Compare is the body of that command's benchstat function with
// its flags as Options.
package benchstat

import (
	"flag"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"

	"github.com/retrievalbench/retrievalbench/internal/benchstat/benchtab"
)

// Options are benchstat's flags, with the same meaning and defaults.
type Options struct {
	Table      string  // -table: split results into tables by this projection
	Row        string  // -row: rows by this projection
	Col        string  // -col: columns by this projection
	Ignore     string  // -ignore: keys whose variation is ignored
	Filter     string  // -filter: a benchproc filter query
	Alpha      float64 // -alpha: a change is significant if p < Alpha
	Confidence float64 // -confidence: the level of the ranges
	Format     string  // -format: "text" or "csv"
}

// DefaultOptions are benchstat's defaults.
func DefaultOptions() Options {
	return Options{
		Table: ".config", Row: ".fullname", Col: ".file", Filter: "*",
		Alpha: benchmath.DefaultThresholds.CompareAlpha, Confidence: 0.95, Format: "text",
	}
}

// Flags defines o's command-line flags on fs, with o's values as their
// defaults: benchstat's flags, those of `retrievalbench compare` and
// `rbench compare`.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Table, "table", o.Table, "split results into tables by distinct values of `projection`")
	fs.StringVar(&o.Row, "row", o.Row, "split results into rows by distinct values of `projection`")
	fs.StringVar(&o.Col, "col", o.Col, "split results into columns by distinct values of `projection`")
	fs.StringVar(&o.Ignore, "ignore", o.Ignore, "ignore variations in `keys` (e.g. commit, to compare files of two commits)")
	fs.StringVar(&o.Filter, "filter", o.Filter, "use only benchmarks matching benchfilter `query`")
	fs.Float64Var(&o.Alpha, "alpha", o.Alpha, "consider change significant if p < `α`")
	fs.Float64Var(&o.Confidence, "confidence", o.Confidence, "confidence `level` for ranges")
	fs.StringVar(&o.Format, "format", o.Format, "print results in `format`: text or csv (warnings to stderr)")
}

// Formats are the accepted values of Options.Format.
var Formats = []string{"text", "csv"}

// Validate reports options benchstat refuses.
func (o Options) Validate() error {
	switch {
	case o.Alpha < 0 || o.Alpha > 1:
		return fmt.Errorf("-alpha must be in range [0, 1]")
	case o.Confidence < 0 || o.Confidence > 1:
		return fmt.Errorf("-confidence must be in range [0, 1]")
	case o.Format != "text" && o.Format != "csv":
		return fmt.Errorf("-format must be text or csv")
	}
	return nil
}

// Compare reads the benchmark files inputs ("path" or "label=path", "-"
// for stdin) and writes benchstat's tables to w; a result line that does
// not parse, or that the filter rejects with a reason, is reported on wErr
// and reading goes on, as benchstat does.
func Compare(w, wErr io.Writer, opt Options, inputs []string) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	filter, err := benchproc.NewFilter(opt.Filter)
	if err != nil {
		return fmt.Errorf("parsing -filter: %s", err)
	}
	var parser benchproc.ProjectionParser
	var parseErr error
	mustParse := func(name, val string, unit bool) *benchproc.Projection {
		var proj *benchproc.Projection
		var err error
		if unit {
			proj, _, err = parser.ParseWithUnit(val, filter)
		} else {
			proj, err = parser.Parse(val, filter)
		}
		if err != nil && parseErr == nil {
			parseErr = fmt.Errorf("parsing %s: %s", name, err)
		}
		return proj
	}
	tableBy := mustParse("-table", opt.Table, true)
	rowBy := mustParse("-row", opt.Row, false)
	colBy := mustParse("-col", opt.Col, false)
	mustParse("-ignore", opt.Ignore, false)
	residue := parser.Residue()
	if parseErr != nil {
		return parseErr
	}

	stat := benchtab.NewBuilder(tableBy, rowBy, colBy, residue)
	files := benchfmt.Files{Paths: inputs, AllowStdin: true, AllowLabels: true}
	for files.Scan() {
		switch rec := files.Result(); rec := rec.(type) {
		case *benchfmt.SyntaxError:
			fmt.Fprintln(wErr, rec)
		case *benchfmt.Result:
			if ok, err := filter.Apply(rec); !ok {
				if err != nil {
					fmt.Fprintln(wErr, err)
				}
				continue
			}
			stat.Add(rec)
		}
	}
	if err := files.Err(); err != nil {
		return err
	}
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = opt.Alpha
	tables := stat.ToTables(benchtab.TableOpts{
		Confidence: opt.Confidence,
		Thresholds: &thresholds,
		Units:      files.Units(),
	})
	if opt.Format == "csv" {
		return tables.ToCSV(w, wErr)
	}
	return tables.ToText(w, false)
}
