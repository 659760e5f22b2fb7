package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Files lists the report files Write creates, in order.
var Files = []string{
	"quality-summary.md", "quality-summary.json", "per-query-results.jsonl",
	"per-model-ranking.csv", "per-repo-summary.csv", "per-intent-summary.csv", "regressions.md",
}

// NamingFile is the per-naming table Write adds when the records say
// whether each query names its target (Summary.PerNaming).
const NamingFile = "per-naming-summary.csv"

// Write writes every report file of s into dir (each atomically).
func Write(dir string, s *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := atomicfile.MarshalJSON(s)
	if err != nil {
		return err
	}
	outs := map[string][]byte{
		"quality-summary.md":      []byte(s.Markdown()),
		"quality-summary.json":    js,
		"per-query-results.jsonl": s.perQuery(),
		"per-model-ranking.csv":   s.rankingCSV(),
		"per-repo-summary.csv":    groupCSV("repo", s.Measures, s.PerRepo),
		"per-intent-summary.csv":  groupCSV("intent", s.Measures, s.PerIntent),
		"regressions.md":          []byte(s.regressionsMD()),
	}
	for _, f := range Files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f), outs[f]); err != nil {
			return err
		}
	}
	if len(s.PerNaming) > 0 {
		// Only for records that say whether each query names its target.
		return atomicfile.WriteFile(filepath.Join(dir, NamingFile), groupCSV("naming", s.Measures, s.PerNaming))
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func f4(v resultfmt.Fixed) string { return strconv.FormatFloat(float64(v), 'f', 4, 64) }

// headline are the measures the Markdown tables show.
func (s *Summary) headline() []string {
	var hs []string
	for _, m := range []string{"hit@1", "recall@5", "mrr@10", "ndcg@10", "recall@10"} {
		for _, have := range s.Measures {
			if have == m {
				hs = append(hs, m)
			}
		}
	}
	return hs
}

// Markdown renders quality-summary.md.
func (s *Summary) Markdown() string {
	var b strings.Builder
	m := s.Meta
	fmt.Fprintf(&b, "# Retrieval quality: %s\n\n", m.Dataset)
	fmt.Fprintf(&b, "%d cases", s.Cases)
	if m.Split != "" {
		fmt.Fprintf(&b, " (split %s)", m.Split)
	}
	fmt.Fprintf(&b, ", %d systems, K = %s", len(s.Systems), joinInts(m.Ks))
	if m.PoolDepth > 0 {
		fmt.Fprintf(&b, ", pool depth %d", m.PoolDepth)
	}
	b.WriteString(".\n\n")

	b.WriteString("## Decision\n\n")
	if len(s.Decisions) == 0 {
		b.WriteString("No decision: no baseline.\n\n")
	} else {
		fmt.Fprintf(&b, "Baseline: `%s`. Each system is compared with it on the same cases (paired bootstrap, α = %.2f on the p-value corrected with Holm's procedure over the systems compared).\n\n", s.Baseline, s.cfg.Rules.Alpha)
		b.WriteString("| system | outcome | rule | detail |\n|---|---|---|---|\n")
		for _, d := range s.Decisions {
			fmt.Fprintf(&b, "| %s | **%s** | %s | %s |\n", d.Model, d.Outcome, d.Rule, mdCell(d.Detail))
		}
		b.WriteString("\n")
	}

	if s.Front != nil {
		fmt.Fprintf(&b, "## Pareto set\n\nOne verdict across all systems: **%s**. A system is beaten when another is not significantly worse on %s (paired bootstrap), latency (paired per-case ratio), peak RSS and cold index time (each more than %.2f× apart), and better on at least one; systems nothing tells apart are ties.\n\n",
			mdCell(s.Front.String()), s.cfg.Rules.Primary, s.cfg.Rules.paretoRules().CostTolerance)
		b.WriteString("| system | on the front | beaten by | tied with | not compared on |\n|---|---|---|---|---|\n")
		for _, r := range s.Front.Systems {
			on := "no"
			if r.OnFront {
				on = "**yes**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Model, on, dash(strings.Join(r.BeatenBy, ", ")), dash(strings.Join(r.TiedWith, ", ")), dash(strings.Join(r.Unchecked, ", ")))
		}
		for _, l := range s.Front.Left {
			fmt.Fprintf(&b, "| %s | left out | – | – | – |\n", l)
		}
		b.WriteString("\n")
	}

	hs := s.headline()
	b.WriteString("## Systems (micro average: every case once, 95% bootstrap CI)\n\n| rank | system | status | cases | failed |")
	for _, h := range hs {
		fmt.Fprintf(&b, " %s |", h)
	}
	maxK := 0
	for _, k := range m.Ks {
		maxK = max(maxK, k)
	}
	judgedK := "judged@10"
	if _, ok := s.firstJudged(judgedK); !ok {
		judgedK = "judged@" + strconv.Itoa(maxK)
	}
	fmt.Fprintf(&b, " %s | unjudged@%d | p50 ms | p95 ms | index s | peak RSS MiB | dim |\n|---|---|---|---|---|", judgedK, maxK)
	for range hs {
		b.WriteString("---|")
	}
	b.WriteString("---|---|---|---|---|---|---|\n")
	for i, ss := range s.Systems {
		if ss.Status == campaignfmt.StatusFailed {
			// Listed after every system that ran, unranked, with nothing
			// that could pass for a score or a speed.
			fmt.Fprintf(&b, "| – | %s | %s | %d | %d |%s – | – | – | – | – | %s | %s |\n", ss.Name, ss.Status, ss.Cases, ss.Failed,
				strings.Repeat(" – |", len(hs)), rss(ss.PeakRSSMB), dim(ss.Dimension))
			continue
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d |", i+1, ss.Name, ss.Status, ss.Cases, ss.Failed)
		for _, h := range hs {
			st, ok := ss.Micro[h]
			if !ok {
				b.WriteString(" n/a |") // not measured (SystemSummary.NotMeasured)
				continue
			}
			fmt.Fprintf(&b, " %s [%s, %s] |", f4(st.Mean), f4(st.Low), f4(st.High))
		}
		fmt.Fprintf(&b, " %s | %d | %s | %s | %s | %s | %s |\n", f4(ss.Judged[judgedK]), ss.Unjudged,
			f1(ss.LatencyP50MS), f1(ss.LatencyP95MS), indexTime(ss), f1(ss.PeakRSSMB), dim(ss.Dimension))
	}
	for _, ss := range s.Systems {
		if len(ss.NotMeasured) > 0 {
			fmt.Fprintf(&b, "\nn/a: %s's records do not carry %s; nothing here or in a decision rests on them.\n", ss.Name, strings.Join(ss.NotMeasured, ", "))
		}
	}
	b.WriteString("\n## Macro averages (every repository once, stratified bootstrap CI; every intent once)\n\n| system |")
	for _, h := range hs {
		fmt.Fprintf(&b, " %s by repo | %s by intent |", h, h)
	}
	b.WriteString("\n|---|")
	for range hs {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, ss := range s.Systems {
		if ss.Status == campaignfmt.StatusFailed {
			continue
		}
		fmt.Fprintf(&b, "| %s |", withFailed(ss.Name, ss.Failed))
		for _, h := range hs {
			st, ok := ss.MacroRepo[h]
			if !ok {
				b.WriteString(" n/a | n/a |")
				continue
			}
			fmt.Fprintf(&b, " %s [%s, %s] | %s |", f4(st.Mean), f4(st.Low), f4(st.High), f4(ss.MacroIntent[h]))
		}
		b.WriteString("\n")
	}
	for _, grp := range []struct {
		title string
		rows  []GroupRow
	}{{"Per repository", s.PerRepo}, {"Per intent", s.PerIntent}, {"Per naming (does the query name its target: exact, by parts, none)", s.PerNaming}} {
		if len(grp.rows) == 0 && strings.HasPrefix(grp.title, "Per naming") {
			continue // the records do not say
		}
		fmt.Fprintf(&b, "\n## %s (%s; mean [95%% bootstrap CI] over the group's n cases)\n\n| system | group | n |", grp.title, strings.Join(hs, ", "))
		for _, h := range hs {
			fmt.Fprintf(&b, " %s |", h)
		}
		b.WriteString("\n|---|---|---|")
		for range hs {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r := range grp.rows {
			fmt.Fprintf(&b, "| %s | %s | %s |", r.Model, r.Group, withFailed(strconv.Itoa(r.N), r.Failed))
			for _, h := range hs {
				v, measured := r.Values[h]
				if ci, ok := r.CI[h]; ok {
					fmt.Fprintf(&b, " %s [%s, %s] |", f4(v), f4(ci[0]), f4(ci[1]))
				} else if measured {
					fmt.Fprintf(&b, " %s |", f4(v))
				} else {
					b.WriteString(" n/a |")
				}
			}
			b.WriteString("\n")
		}
	}
	if len(s.Decisions) > 0 {
		b.WriteString("\n## Paired tests against the baseline\n\np is the paired bootstrap's; p Holm corrects it for the number of systems compared on the measure, and decides.\n\n" +
			"| system | measure | baseline | system | diff | 95% CI | p | p Holm | n |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, d := range s.Decisions {
			for _, t := range d.Tests {
				if t.NotMeasured {
					fmt.Fprintf(&b, "| %s | %s | not measured | | | | | | 0 |\n", d.Model, t.Measure)
					continue
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %+.4f | [%+.4f, %+.4f] | %s | %s | %d |\n", d.Model, t.Measure, f4(t.Baseline), f4(t.Model),
					float64(t.Diff), float64(t.Low), float64(t.High), f4(t.P), f4(t.PHolm), t.N)
			}
		}
	}
	if len(s.Decisions) > 0 {
		b.WriteString("\n## Costs against the baseline\n\nLatency: the geometric mean of the per-case ratios system/baseline on the cases both ran, with its 95% paired bootstrap interval (a load that slows every query alike leaves it unchanged); a budget decides only when the whole interval is past it. Index: the cold build time (a reused index counts with the build time recorded when it was built).")
		tokCol := s.cfg.Rules.MaxTokensRatio > 0
		if tokCol {
			b.WriteString(" Tokens (under a token budget): tokens@10, the context of the top 10 hits, as the geometric mean of the per-case ratios with its 95% paired bootstrap interval, as latency.")
		}
		b.WriteString("\n\n| system | latency ratio | 95% CI | p | n | index ratio (cold) | peak RSS MiB |")
		if tokCol {
			b.WriteString(" tokens@10 ratio [95% CI] |")
		}
		b.WriteString("\n|---|---|---|---|---|---|---|")
		if tokCol {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, d := range s.Decisions {
			if d.Latency == nil && d.Index == nil {
				continue
			}
			lat, ci, p, n := "–", "–", "–", "–"
			if l := d.Latency; l != nil {
				lat, ci, p, n = fmt.Sprintf("%.2fx", float64(l.Ratio)), fmt.Sprintf("[%.2fx, %.2fx]", float64(l.Low), float64(l.High)), f4(l.P), strconv.Itoa(l.N)
			}
			idx := "–"
			if ic := d.Index; ic != nil {
				switch {
				case !ic.Checked:
					idx = "not checked (reused, no recorded build)"
				case ic.Reused:
					idx = fmt.Sprintf("%.2fx (reused: recorded build)", float64(ic.Ratio))
				default:
					idx = fmt.Sprintf("%.2fx", float64(ic.Ratio))
				}
			}
			rss := "–"
			if ss := s.system(d.Model); ss != nil {
				rss = f1(ss.PeakRSSMB)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |", d.Model, lat, ci, p, n, idx, rss)
			if tokCol {
				tok := "not compared (no token counts)"
				if t := d.Tokens; t != nil {
					tok = fmt.Sprintf("%.2fx [%.2fx, %.2fx] (%.0f vs %.0f)", float64(t.Ratio), float64(t.Low), float64(t.High), float64(t.Mean), float64(t.BaselineMean))
				}
				fmt.Fprintf(&b, " %s |", tok)
			}
			b.WriteString("\n")
		}
	}
	g := s.cfg.Rules
	b.WriteString("\n## Gates\n\n")
	var gains []string
	for _, r := range g.Gains {
		gains = append(gains, fmt.Sprintf("%s ≥ %+.2f", r.Measure, r.Threshold))
	}
	fmt.Fprintf(&b, "A system becomes `default` when one of %s holds with a significant paired test (Holm-corrected p < %.2f, CI above 0), no gate measure drops significantly by its threshold, every repository and intent with ≥ %d cases keeps the gain (else `needs_more_data`), and it is not significantly over a budget: query latency ≤ %.2f× the baseline (the paired ratio's whole interval above it is over), cold index time ≤ %.2f× and peak RSS ≤ %.0f MiB (else `quality_profile`). Without a gain: `interactive_profile` when it is no worse within %.2f on every gate measure (each CI above −%.2f: non-inferiority) and significantly faster than %.2f× the baseline; `needs_more_data` when a gain reaches its threshold without significance, or when it is faster but not shown no worse (each says how many more paired cases would settle it at the observed effect and spread); `rejected` otherwise; fewer than %d paired cases is `needs_more_data`. A system that failed every case is `rejected`; one that failed some is never `default` or a profile (`needs_more_data`, rule partial_failure).\n",
		strings.Join(gains, ", or "), g.Alpha, g.MinGroupCases, g.MaxLatencyRatio, g.MaxIndexRatio, g.MaxPeakRSSMB, g.margin(), g.margin(), g.InteractiveLatencyRatio, g.MinCases)
	if g.MaxTokensRatio > 0 {
		fmt.Fprintf(&b, "\nToken budget: a gain is `default` only if the context it hands an agent, tokens@10 (docs/judging.md, Tokens), is not significantly over %.2f× the baseline's (the paired per-case ratio's whole interval above it is over: `quality_profile`); records no tokenizer counted leave it unchecked, and the decision says so.\n", g.MaxTokensRatio)
	}
	if len(s.Failures) > 0 {
		b.WriteString("\n## Failures\n\n")
		for _, f := range s.Failures {
			fmt.Fprintf(&b, "- %s\n", mdCell(f.String()))
		}
	}
	if len(s.Effort) > 0 {
		b.WriteString("\n## Grading effort\n\nRows of the grading sheet per pool depth (distinct results of every system's top hits per case). \"can change\" counts the rows to grade that some systems rank differently from others (impact > 0): only their grades can move a paired comparison; the sheet lists them first, most impact first.\n\n| depth | results | graded | to grade | can change |\n|---|---|---|---|---|\n")
		for _, e := range s.Effort {
			mark := ""
			if e.Depth == s.Meta.PoolDepth {
				mark = " (this pool)"
			}
			fmt.Fprintf(&b, "| %d%s | %d | %d | %d | %d |\n", e.Depth, mark, e.Results, e.Graded, e.ToGrade, e.CanChange)
		}
	}
	if len(s.GoldKept) > 0 {
		b.WriteString("\n## Grades the case file's gold overrules\n\nThe case file's gold grades what it names; people's grades fill in what it does not (docs/judging.md). These grades were given to results the gold already grades, differently:\n\n")
		for _, g := range s.GoldKept {
			fmt.Fprintf(&b, "- %s\n", mdCell(g))
		}
	}
	s.warningsMD(&b)
	b.WriteString("\n## Metadata\n\n")
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "- %s: %s\n", k, v)
		}
	}
	kv("tool", strings.TrimSpace(m.Tool+" "+m.Version))
	kv("commit", m.Commit)
	kv("generated", m.Generated)
	kv("host", m.Host)
	kv("go", m.GoVersion)
	kv("onnx runtime", m.ORTVersion)
	kv("backend", m.Backend)
	kv("chunking", m.Chunking)
	kv("judgments", m.Judgments)
	kv("peak RSS", m.RSSMethod)
	for _, f := range m.Files {
		fmt.Fprintf(&b, "- %s: `%s` sha256 `%s`\n", f.Role, f.Path, f.SHA256)
	}
	for _, r := range m.Repos {
		fmt.Fprintf(&b, "- repo %s: %s at `%s`, %d docs, %d chunks", r.Name, r.Source, r.Commit, r.Docs, r.Chunks)
		if r.Note != "" {
			fmt.Fprintf(&b, " (%s)", r.Note)
		}
		b.WriteString("\n")
	}
	for _, md := range m.Models {
		fmt.Fprintf(&b, "- model %s: dim %d, %s pooling, max %d tokens, query prefix %q, passage prefix %q, fingerprint `%s`\n",
			md.ID, md.Dimension, md.Pooling, md.MaxTokens, md.QueryPrefix, md.PassagePrefix, md.Fingerprint)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "- note: %s\n", n)
	}
	return b.String()
}

func (s *Summary) firstJudged(k string) (resultfmt.Fixed, bool) {
	if len(s.Systems) == 0 {
		return 0, false
	}
	v, ok := s.Systems[0].Judged[k]
	return v, ok
}

func f1(v resultfmt.Fixed) string { return strconv.FormatFloat(float64(v), 'f', 1, 64) }

// maxWarnings is how many warnings of one system quality-summary.md lists;
// the records hold them all.
const maxWarnings = 20

// warningsMD writes the Warnings section: per system, what it noticed
// without failing (hits outside the corpus, repeated hits), by task.
func (s *Summary) warningsMD(b *strings.Builder) {
	if !slices.ContainsFunc(s.Systems, func(ss SystemSummary) bool { return ss.Warnings > 0 }) {
		return
	}
	b.WriteString("\n## Warnings\n\nWhat systems noticed without failing a case; the records (results/*.jsonl) carry each case's.\n\n")
	for _, ss := range s.Systems {
		for i, w := range ss.warnings {
			if i == maxWarnings {
				fmt.Fprintf(b, "- %s: … and %d more\n", ss.Name, len(ss.warnings)-maxWarnings)
				break
			}
			fmt.Fprintf(b, "- %s %s\n", ss.Name, mdCell(w))
		}
	}
}

// SystemWarnings returns what the named system noticed without failing,
// each prefixed with its task (or "index:"), in record order.
func (s *Summary) SystemWarnings(name string) []string {
	if ss := s.system(name); ss != nil {
		return slices.Clone(ss.warnings)
	}
	return nil
}

// indexTime is a system's index time, and for a reused index the time the
// earlier run took to build it.
func indexTime(ss SystemSummary) string {
	if ss.IndexReused == 0 {
		return f1(ss.IndexSeconds)
	}
	return fmt.Sprintf("%s (%d reused, built in %s)", f1(ss.IndexSeconds), ss.IndexReused, f1(ss.IndexBuildSeconds))
}

// rss is a failed system's peak RSS: none when it was not measured.
func rss(v resultfmt.Fixed) string {
	if v == 0 {
		return "–"
	}
	return f1(v)
}

// withFailed is s with the count of failed cases, when there are any.
func withFailed(s string, failed int) string {
	if failed == 0 {
		return s
	}
	return fmt.Sprintf("%s (%d failed)", s, failed)
}

func dim(d int) string {
	if d == 0 {
		return "–"
	}
	return strconv.Itoa(d)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

func mdCell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// perQuery renders per-query-results.jsonl: one line per (case, model,
// hit), or one line without a rank for a case a model returned nothing for.
func (s *Summary) perQuery() []byte {
	type line struct {
		Case     string          `json:"case"`
		Repo     string          `json:"repo"`
		Intent   string          `json:"intent"`
		Model    string          `json:"model"`
		Rank     int             `json:"rank"`
		DocID    string          `json:"doc_id,omitempty"`
		Kind     string          `json:"kind,omitempty"`
		Path     string          `json:"path,omitempty"`
		Symbol   string          `json:"symbol,omitempty"`
		Score    resultfmt.Fixed `json:"score"`
		Grade    *int            `json:"grade"`
		Relevant bool            `json:"relevant"`
		Error    string          `json:"error,omitempty"`
		Latency  float64         `json:"-"`
	}
	evaluated := map[string]bool{}
	for _, t := range s.tasks {
		evaluated[t.ID] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, name := range s.order {
		for _, r := range s.recs {
			if r.Model() != name || !evaluated[r.Task] {
				continue
			}
			if len(r.Hits) == 0 {
				_ = enc.Encode(line{Case: r.Task, Repo: r.Repo, Intent: r.Intent, Model: name, Error: r.Error})
			}
			for _, h := range r.Hits {
				l := line{Case: r.Task, Repo: r.Repo, Intent: r.Intent, Model: name, Rank: h.Rank, DocID: h.DocID, Kind: h.Kind,
					Path: h.Path, Symbol: h.Symbol, Score: resultfmt.Fixed(h.Score), Relevant: h.Judged && h.Grade >= 1}
				if h.Judged {
					g := h.Grade
					l.Grade = &g
				}
				_ = enc.Encode(l)
			}
		}
	}
	return buf.Bytes()
}

func (s *Summary) rankingCSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := []string{"rank", "model", "status", "decision", "cases", "failed"}
	for _, m := range s.Measures {
		head = append(head, m, m+"_ci_low", m+"_ci_high", m+"_macro_repo", m+"_macro_intent")
	}
	for _, k := range s.Meta.Ks {
		head = append(head, "judged@"+strconv.Itoa(k))
	}
	head = append(head, "unjudged", "latency_p50_ms", "latency_p95_ms", "index_seconds", "peak_rss_mb", "dimension",
		"index_reused", "index_build_seconds", "warnings")
	_ = w.Write(head)
	for i, ss := range s.Systems {
		if ss.Status == campaignfmt.StatusFailed {
			// Unranked, with empty cells where a score or latency would be: a 0
			// there would read as one.
			row := []string{"", ss.Name, ss.Status, ss.Decision, strconv.Itoa(ss.Cases), strconv.Itoa(ss.Failed)}
			row = append(row, make([]string, len(head)-len(row)-5)...)
			row = append(row, f4(ss.PeakRSSMB), strconv.Itoa(ss.Dimension), strconv.Itoa(ss.IndexReused), f4(ss.IndexBuildSeconds), strconv.Itoa(ss.Warnings))
			_ = w.Write(row)
			continue
		}
		row := []string{strconv.Itoa(i + 1), ss.Name, ss.Status, ss.Decision, strconv.Itoa(ss.Cases), strconv.Itoa(ss.Failed)}
		for _, m := range s.Measures {
			st, ok := ss.Micro[m]
			if !ok {
				row = append(row, "", "", "", "", "") // not measured
				continue
			}
			row = append(row, f4(st.Mean), f4(st.Low), f4(st.High), f4(ss.MacroRepo[m].Mean), f4(ss.MacroIntent[m]))
		}
		for _, k := range s.Meta.Ks {
			row = append(row, f4(ss.Judged["judged@"+strconv.Itoa(k)]))
		}
		row = append(row, strconv.Itoa(ss.Unjudged), f4(ss.LatencyP50MS), f4(ss.LatencyP95MS), f4(ss.IndexSeconds), f4(ss.PeakRSSMB), strconv.Itoa(ss.Dimension),
			strconv.Itoa(ss.IndexReused), f4(ss.IndexBuildSeconds), strconv.Itoa(ss.Warnings))
		_ = w.Write(row)
	}
	w.Flush()
	return buf.Bytes()
}

func groupCSV(field string, measures []string, rows []GroupRow) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(append([]string{"model", field, "n", "failed"}, measures...))
	for _, r := range rows {
		row := []string{r.Model, r.Group, strconv.Itoa(r.N), strconv.Itoa(r.Failed)}
		for _, m := range measures {
			if v, ok := r.Values[m]; ok {
				row = append(row, f4(v))
			} else {
				row = append(row, "") // not measured
			}
		}
		_ = w.Write(row)
	}
	w.Flush()
	return buf.Bytes()
}

func (s *Summary) regressionsMD() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Regressions: %s\n\n", s.Meta.Dataset)
	if s.Baseline != "" {
		fmt.Fprintf(&b, "Against the baseline `%s`. ", s.Baseline)
	}
	b.WriteString("Kinds: a lost relevant top result, the first relevant hit moved lower, an easy symbol lookup without a relevant hit in the top 5, a repository or intent where the primary measure trails the baseline by the gain threshold.\n")
	if len(s.Regressions) == 0 {
		b.WriteString("\nNone.\n")
		return b.String()
	}
	for _, kind := range []string{LostTopResult, FirstRelevantDown, EasySymbolMissed, WeakGroup} {
		var rows []Regression
		for _, r := range s.Regressions {
			if r.Kind == kind {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (%d)\n\n| model | case | repo | intent | detail |\n|---|---|---|---|---|\n", kind, len(rows))
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Model, r.Task, r.Repo, r.Intent, mdCell(r.Detail))
		}
	}
	return b.String()
}
