package report

import (
	"slices"
	"strings"
)

// PlotFiles are the base names the plots package draws for s, each as
// .svg and .png: a score figure (means and CIs) per PlotMeasures, then timing and
// pareto; and pareto-tokens when the summary has TokensMeasure.
func (s *Summary) PlotFiles() []string {
	var fs []string
	for _, g := range s.PlotMeasures() {
		fs = append(fs, ScoreFigure(g))
	}
	fs = append(fs, "timing", "pareto")
	if slices.Contains(s.Measures, TokensMeasure) {
		fs = append(fs, "pareto-tokens")
	}
	return fs
}

// TokensMeasure is the token cost the pareto-tokens figure draws quality
// against (docs/judging.md, Tokens).
const TokensMeasure = "tokens@10"

// PlotMeasures are the measures of the gain rules, or the first three measures when
// there are none.
func (s *Summary) PlotMeasures() []string {
	var ms []string
	for _, r := range s.cfg.Rules.Gains {
		ms = append(ms, r.Measure)
	}
	if len(ms) == 0 {
		ms = s.Measures[:min(3, len(s.Measures))]
	}
	return ms
}

// Primary is the measure that ranks the systems (the rules' primary), or
// the first plotted measure.
func (s *Summary) Primary() string {
	if p := s.cfg.Rules.Primary; p != "" {
		return p
	}
	if ms := s.PlotMeasures(); len(ms) > 0 {
		return ms[0]
	}
	return ""
}

// Order lists the systems in the order they ran (figures colour them by
// it, so a system keeps its colour across figures).
func (s *Summary) Order() []string { return s.order }

// ScoreFigure is the base name of the score figure of measure m:
// "score-ndcg-10" for ndcg@10.
func ScoreFigure(m string) string {
	return "score-" + strings.NewReplacer("@", "-", "/", "-").Replace(m)
}
