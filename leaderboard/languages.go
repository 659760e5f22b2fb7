package leaderboard

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// LanguageFamily is one task asked in several programming languages, one
// dataset per language: the leaderboard puts each system's score in every
// language side by side, with their macro average, next to the
// Reference language's.
type LanguageFamily struct {
	Name  string // key of the table: "repoqa-doc"
	Title string // heading: "RepoQA documentation → definition"
	// Reference is the language the other columns are compared with
	// (the "Python-only numbers" of most code benchmarks).
	Reference string
	Datasets  []LanguageDataset // column order, Reference first
	// Naming, when set, restricts the table to the tasks whose records
	// carry that naming ("none": queries that do not name their target;
	// resultfmt.Record.Naming); a language without such a task is absent.
	Naming string
	// SmokeBelow: a table in which a present language has fewer tasks is a
	// smoke test (LanguageTable.Smoke): each language's score is shown,
	// no macro average and no gap, which so few tasks cannot support.
	SmokeBelow int
	// Requires is the dataset without which the family adds nothing to the
	// others (Go's masked variant): no table when it is not in the results.
	Requires string
}

// LanguageDataset is the dataset of one language of a LanguageFamily.
type LanguageDataset struct {
	Language string `json:"language"`
	Dataset  string `json:"dataset"`
}

// RepoQALanguages is RepoQA's doc → definition task in its six languages:
// repoqa-python-docstring (docstrings, datasets/repoqa.PythonDocstring)
// and repoqa-LANG-doc (doc comments, datasets/repoqa.DocComment) for
// C++, Go, Java, Rust and TypeScript (docs/repoqa-languages.md). A test
// keeps the names equal to package repoqa's.
func RepoQALanguages() LanguageFamily {
	f := LanguageFamily{Name: "repoqa-doc", Title: "RepoQA documentation → definition", Reference: "python",
		Datasets: []LanguageDataset{{"python", "repoqa-python-docstring"}}, SmokeBelow: RepoQASmokeBelow}
	for _, l := range []string{"cpp", "go", "java", "rust", "typescript"} {
		f.Datasets = append(f.Datasets, LanguageDataset{l, "repoqa-" + l + "-doc"})
	}
	return f
}

// RepoQASmokeBelow is the least task count per language of a RepoQA
// language table that compares languages: the CI size has 4 to 10 per
// language, whose intervals are 0.3 to 0.8 wide (issue 41); 30 tasks of a
// measure in [0, 1] bound the 95% interval's half-width near 0.18.
const RepoQASmokeBelow = 30

// RepoQALanguagesMasked is RepoQALanguages with Go's masked variant
// (repoqa-go-doc-masked: a query's leading name, Go's convention, replaced
// by "It"), so that Go is asked like the other languages.
func RepoQALanguagesMasked() LanguageFamily {
	f := RepoQALanguages()
	f.Name, f.Title = "repoqa-doc-masked", "RepoQA documentation → definition, Go's leading names masked"
	f.Requires = "repoqa-go-doc-masked"
	f.Datasets = slices.Clone(f.Datasets)
	for i := range f.Datasets {
		if f.Datasets[i].Language == "go" {
			f.Datasets[i].Dataset = "repoqa-go-doc-masked"
		}
	}
	return f
}

// RepoQALanguagesUnnamed is RepoQALanguagesMasked restricted to the tasks
// whose query does not name its target, exactly or by the parts of its
// name (Naming "none"): like tasks in every language.
func RepoQALanguagesUnnamed() LanguageFamily {
	f := RepoQALanguagesMasked()
	f.Name, f.Title, f.Naming = "repoqa-doc-unnamed", "RepoQA documentation → definition, queries that do not name their target", "none"
	return f
}

// LanguageTable is a LanguageFamily's scores at one split: per system, the
// primary measure in every language, the macro average over the languages
// in the results (each language weighs the same, whatever its task
// count), the macro average of the languages other than Reference, and
// its gap to Reference.
type LanguageTable struct {
	// Key is "family.split", the anchor of the table.
	Key       string `json:"key"`
	Family    string `json:"family"`
	Title     string `json:"title"`
	Split     string `json:"split"`
	Measure   string `json:"measure"`
	Reference string `json:"reference"`
	// Languages are every language of the family (the columns); Present
	// those with a dataset in the results, which the macro averages are
	// over; Absent the rest, shown as such for every system.
	Languages []LanguageDataset `json:"languages"`
	Present   []string          `json:"present"`
	Absent    []string          `json:"absent,omitempty"`
	// Cases is each present language's task count.
	Cases map[string]int `json:"cases"`
	// Naming is the family's restriction (LanguageFamily.Naming).
	Naming string `json:"naming,omitempty"`
	// Smoke: a present language has fewer than the family's SmokeBelow
	// tasks; the table shows each language's score and no comparison
	// (no macro averages, no gap).
	Smoke      bool          `json:"smoke,omitempty"`
	SmokeBelow int           `json:"smoke_below,omitempty"`
	Rows       []LanguageRow `json:"rows"` // complete rows by Macro, best first; then the rest by name
}

// LanguageRow is one system/config across the languages.
type LanguageRow struct {
	Model string `json:"model"`
	// Scores holds the mean and CI of each present language the system
	// ran and did not fail on (the dataset table's numbers).
	Scores map[string]resultfmt.Stat `json:"scores"`
	// Missing lists the present languages without a cell of the system,
	// Failed those whose every task failed: either leaves the row without
	// macro averages rather than averaging over fewer languages.
	Missing []string `json:"missing,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	// Macro is the mean of the present languages' means with a stratified
	// bootstrap 95% CI (each resample draws every language's tasks anew);
	// Others the same over the present languages but Reference; Gap is
	// Others' mean minus Reference's, with its stratified bootstrap 95% CI
	// (gapStat). All nil when the row is incomplete or the table a smoke
	// test (Others and Gap also when Reference or no other language is
	// present).
	Macro  *resultfmt.Stat `json:"macro,omitempty"`
	Others *resultfmt.Stat `json:"macro_others,omitempty"`
	Gap    *resultfmt.Stat `json:"gap_others_vs_reference,omitempty"`
}

// Complete reports whether the row has every present language.
func (r LanguageRow) Complete() bool { return len(r.Missing) == 0 && len(r.Failed) == 0 }

// buildLanguages returns the tables of every family with at least two
// languages in the datasets (after its Naming restriction, and with its
// Requires dataset), per split in split order.
func buildLanguages(ds []*Dataset, cfg Config) []*LanguageTable {
	var out []*LanguageTable
	for _, f := range cfg.Languages {
		bySplit := map[string]map[string]*Dataset{} // split → language → dataset
		for _, lang := range f.Datasets {
			for _, d := range ds {
				if d.Dataset == lang.Dataset {
					if bySplit[d.Split] == nil {
						bySplit[d.Split] = map[string]*Dataset{}
					}
					bySplit[d.Split][lang.Language] = d
				}
			}
		}
		for _, split := range slicesSortedKeys(bySplit) {
			if len(bySplit[split]) < 2 {
				continue
			}
			if f.Requires != "" && !slices.ContainsFunc(slices.Collect(maps.Values(bySplit[split])), func(d *Dataset) bool { return d.Dataset == f.Requires }) {
				continue
			}
			if t := languageTable(f, split, bySplit[split], cfg); len(t.Present) >= 2 {
				out = append(out, t)
			}
		}
	}
	return out
}

func slicesSortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func languageTable(f LanguageFamily, split string, byLang map[string]*Dataset, cfg Config) *LanguageTable {
	t := &LanguageTable{Key: f.Name + "." + split, Family: f.Name, Title: f.Title, Split: split, Reference: f.Reference,
		Languages: f.Datasets, Cases: map[string]int{}, Naming: f.Naming, SmokeBelow: f.SmokeBelow}
	// keep[lang] are the indices of the tasks the table counts (nil: all).
	keep := map[string][]int{}
	if f.Naming != "" {
		for lang, d := range byLang {
			var idx []int
			for i, n := range d.naming {
				if n == f.Naming {
					idx = append(idx, i)
				}
			}
			keep[lang] = idx
		}
	}
	column := func(lang, model string) []float64 {
		c := byLang[lang].cols[model]
		if f.Naming == "" {
			return c
		}
		out := make([]float64, 0, len(keep[lang]))
		for _, i := range keep[lang] {
			out = append(out, c[i])
		}
		return out
	}
	// The measure: the configured primary when a language's records carry
	// it, else the first present language's primary.
	t.Measure = cfg.Primary
	for _, l := range f.Datasets {
		if d := byLang[l.Language]; d != nil {
			if d.Primary != cfg.Primary {
				t.Measure = d.Primary
			}
			break
		}
	}
	models := map[string]bool{}
	for _, l := range f.Datasets {
		d := byLang[l.Language]
		if d == nil || f.Naming != "" && len(keep[l.Language]) == 0 {
			t.Absent = append(t.Absent, l.Language)
			continue
		}
		t.Present = append(t.Present, l.Language)
		t.Cases[l.Language] = d.Cases
		if f.Naming != "" {
			t.Cases[l.Language] = len(keep[l.Language])
		}
		if t.Cases[l.Language] < f.SmokeBelow {
			t.Smoke = true
		}
		for _, r := range d.Rows {
			models[r.Model] = true
		}
	}
	for _, m := range slicesSortedKeys(models) {
		row := LanguageRow{Model: m, Scores: map[string]resultfmt.Stat{}}
		var all, others [][]float64
		for _, lang := range t.Present {
			d := byLang[lang]
			i := slices.IndexFunc(d.Rows, func(r Row) bool { return r.Model == m })
			switch {
			case i < 0:
				row.Missing = append(row.Missing, lang)
				continue
			case d.Rows[i].Status == campaignfmt.StatusFailed:
				row.Failed = append(row.Failed, lang)
				continue
			}
			s, ok := d.Rows[i].Scores[t.Measure]
			if !ok || d.Primary != t.Measure {
				// The system's records there lack the measure.
				row.Missing = append(row.Missing, lang)
				continue
			}
			col := column(lang, m)
			if f.Naming != "" {
				ci := cfg.Stats.CI(col)
				s = resultfmt.NewStat(ci.Mean, ci.Low, ci.High)
			}
			row.Scores[lang] = s
			all = append(all, col)
			if lang != t.Reference {
				others = append(others, col)
			}
		}
		if row.Complete() && !t.Smoke {
			macro := macroStat(all, cfg.Stats)
			row.Macro = &macro
			if _, ok := row.Scores[t.Reference]; ok && len(others) > 0 {
				o := macroStat(others, cfg.Stats)
				gap := gapStat(others, column(t.Reference, m), cfg.Stats)
				row.Others, row.Gap = &o, &gap
			}
		}
		t.Rows = append(t.Rows, row)
	}
	sort.SliceStable(t.Rows, func(i, j int) bool {
		a, b := t.Rows[i], t.Rows[j]
		if (a.Macro != nil) != (b.Macro != nil) {
			return a.Macro != nil
		}
		if a.Macro != nil && a.Macro.Mean != b.Macro.Mean {
			return a.Macro.Mean > b.Macro.Mean
		}
		return a.Model < b.Model
	})
	return t
}

// macroStat is the mean of the columns' means (one column per language,
// one value per task) with a stratified percentile bootstrap 95% CI
// (metrics.Stats.Stratified, DefaultStream). The same columns and stats
// give the same interval.
func macroStat(cols [][]float64, st metrics.Stats) resultfmt.Stat {
	if len(cols) == 0 {
		return resultfmt.Stat{}
	}
	mean := 0.0
	for _, c := range cols {
		mean += metrics.Mean(c)
	}
	mean /= float64(len(cols))
	lo, hi := st.Stratified(cols, metrics.DefaultStream)
	return resultfmt.NewStat(mean, lo, hi)
}

// gapStat is the macro mean of others minus the mean of ref with a
// stratified percentile bootstrap 95% CI: every resample draws each
// language's tasks anew. It is Stratified over others and ref scaled by
// −k (k = len(others)), whose macro mean is k/(k+1) times the gap, scaled
// back by (k+1)/k (a percentile interval follows a positive scaling).
func gapStat(others [][]float64, ref []float64, st metrics.Stats) resultfmt.Stat {
	k := float64(len(others))
	if k == 0 || len(ref) == 0 {
		return resultfmt.Stat{}
	}
	neg := make([]float64, len(ref))
	for i, v := range ref {
		neg[i] = -k * v
	}
	groups := append(slices.Clone(others), neg)
	mean := 0.0
	for _, c := range others {
		mean += metrics.Mean(c)
	}
	mean = mean/k - metrics.Mean(ref)
	lo, hi := st.Stratified(groups, metrics.DefaultStream)
	return resultfmt.NewStat(mean, lo*(k+1)/k, hi*(k+1)/k)
}

// Header names the columns of a language table, in order: a smoke test
// has the languages only.
func (t *LanguageTable) Header() []string {
	h := []string{"system/config"}
	for _, l := range t.Languages {
		h = append(h, l.Language)
	}
	if t.Smoke {
		return h
	}
	return append(h, "macro ("+t.macroOver()+")", "macro without "+t.Reference, "Δ without "+t.Reference+" − "+t.Reference+" (95% CI)")
}

// macroOver says what the macro average is over: "6 languages", or "4 of
// 6 languages in the results" when some have no dataset.
func (t *LanguageTable) macroOver() string {
	if len(t.Absent) == 0 {
		return plural(len(t.Present), "language")
	}
	return strings.Join([]string{itoa(len(t.Present)), "of", plural(len(t.Languages), "language"), "in the results"}, " ")
}

// Cells returns the table cells of row i, aligned with Header.
func (t *LanguageTable) Cells(i int) []string {
	r := t.Rows[i]
	c := []string{r.Model}
	for _, l := range t.Languages {
		switch {
		case slices.Contains(t.Absent, l.Language):
			c = append(c, "— (not in the results)")
		case slices.Contains(r.Missing, l.Language):
			c = append(c, "missing")
		case slices.Contains(r.Failed, l.Language):
			c = append(c, "failed")
		default:
			c = append(c, stat(r.Scores[l.Language]))
		}
	}
	if t.Smoke {
		return c
	}
	if r.Macro == nil {
		var why []string
		if len(r.Missing) > 0 {
			why = append(why, "missing "+strings.Join(r.Missing, ", "))
		}
		if len(r.Failed) > 0 {
			why = append(why, "failed "+strings.Join(r.Failed, ", "))
		}
		return append(c, "— ("+strings.Join(why, "; ")+")", "—", "—")
	}
	c = append(c, stat(*r.Macro))
	if r.Others == nil {
		return append(c, "—", "—")
	}
	return append(c, stat(*r.Others), signed(r.Gap.Mean)+" ["+signed(r.Gap.Low)+", "+signed(r.Gap.High)+"]")
}

// signed writes v with four decimals and its sign ("+0.0123", "-0.0456").
func signed(v Fixed) string {
	r := resultfmt.Round4(float64(v))
	if r == 0 {
		r = 0 // no "-0.0000"
	}
	return fmt.Sprintf("%+.4f", r)
}

func itoa(n int) string { return strconv.Itoa(n) }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

// about is the paragraph under a language table's heading.
func (t *LanguageTable) about(b *Board) string {
	var counts []string
	for _, l := range t.Present {
		counts = append(counts, l+" "+itoa(t.Cases[l]))
	}
	if t.Smoke {
		var counts []string
		for _, l := range t.Present {
			counts = append(counts, l+" "+itoa(t.Cases[l]))
		}
		return "Smoke test, not a comparison of languages: " + t.datasetNames() + " with " + strings.Join(counts, ", ") +
			" tasks, fewer than " + itoa(t.SmokeBelow) + " in some language, too few for intervals narrow enough to compare languages " +
			"or a macro average; each cell is the dataset table's " + t.Measure + " with its 95% bootstrap CI, to see that every system runs in every language."
	}
	s := "The same task in each language (one dataset per language: " + t.datasetNames() + "); " + t.Measure +
		" per system with its 95% bootstrap CI, as in each dataset's table. The macro average weighs every language the same " +
		"(tasks: " + strings.Join(counts, ", ") + "); its 95% CI is a stratified bootstrap (" + itoa(b.Resamples) +
		" resamples, each language's tasks drawn anew). A system without a cell in a language, or whose every task there failed, " +
		"shows it as missing or failed and gets no macro average: it is never averaged over fewer languages. " +
		"Δ is the macro average without " + t.Reference + " minus " + t.Reference + "'s mean: negative when the system is worse outside " + t.Reference +
		"; its 95% CI is the same stratified bootstrap of the difference."
	if t.Naming != "" {
		s += " Only the tasks whose records say naming \"" + t.Naming + "\" (whether the query names its target: " +
			"datasets/repoqa.QueryNaming) count here; a language without such a task is not in the table."
	}
	if len(t.Absent) > 0 {
		s += " Not in these results: " + strings.Join(t.Absent, ", ") + " (the macro averages are over the other languages, for every system)."
	}
	return s
}

func (t *LanguageTable) datasetNames() string {
	var ns []string
	for _, l := range t.Languages {
		if !slices.Contains(t.Absent, l.Language) {
			ns = append(ns, l.Dataset)
		}
	}
	return strings.Join(ns, ", ")
}

// sortValue is the numeric sort key of cell j of row i ("" sorts as
// text): a score's mean, the gap.
func (t *LanguageTable) sortValue(i, j int) string {
	r := t.Rows[i]
	n := len(t.Languages)
	switch {
	case j == 0:
		return ""
	case j <= n:
		if s, ok := r.Scores[t.Languages[j-1].Language]; ok {
			return f4(s.Mean)
		}
	case j == n+1 && r.Macro != nil:
		return f4(r.Macro.Mean)
	case j == n+2 && r.Others != nil:
		return f4(r.Others.Mean)
	case j == n+3 && r.Gap != nil:
		return f4(r.Gap.Mean)
	}
	return ""
}
