package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/report/plots"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// runScore merges a filled grading sheet (or labels.jsonl) with the case
// file's gold and recomputes every report of a campaign run.
func runScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", "usage: retrievalbench score -run DIR (-sheet FILLED.csv | -labels labels.jsonl) [-out DIR] [flags]\n\n"+
		"The case file's gold grades what it names (a person's different grade of such a result is listed\n"+
		"in quality-summary.md, not used: edit the case file to change it); people's grades fill in the rest;\n"+
		"a grade whose case or result changed since it was graded is stale (listed, not used). Results without\n"+
		"either are unjudged — non-relevant in the measures and counted per model as judged@k.\n\nflags:\n", stderr)
	runDir := fs.String("run", "", "campaign output `dir` (run.json, results/)")
	sheet := fs.String("sheet", "", "filled grading-sheet `csv`")
	labels := fs.String("labels", "", "labels `jsonl` ({case_id, result_id, grade} per line), instead of -sheet")
	out := fs.String("out", "", "where the reports go (default: the run dir)")
	var rf reportFlags
	rf.register(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runDir == "" || (*sheet == "") == (*labels == "") || fs.NArg() != 0 {
		return badUsage(fs, "score: need -run and exactly one of -sheet and -labels")
	}
	if *out == "" {
		*out = *runDir
	}
	gen, err := rf.generated()
	if err != nil {
		return usagef("score: %v", err)
	}
	run, err := campaignfmt.Read(filepath.Join(*runDir, "run.json"))
	if err != nil {
		return err
	}
	recs, err := resultfmt.ReadRecords(filepath.Join(*runDir, "results"))
	if err != nil {
		return err
	}
	var human []report.Judgment
	file, role := *sheet, "grading sheet"
	if *sheet != "" {
		human, err = report.ReadSheet(*sheet)
	} else {
		file, role = *labels, "labels"
		human, err = report.ReadLabels(*labels)
	}
	if err != nil {
		return err
	}
	rf.visit(fs)
	cfg, source, err := rf.campaignConfig(run)
	if err != nil {
		return usagef("score: %s: %v", *runDir, err)
	}
	sum, err := campaignfmt.SumFile(role, file)
	if err != nil {
		return err
	}
	run.Meta.Generated = gen
	run.Meta.Rules, run.Meta.Stats = cfg.Record() // what these reports decided with
	run.Meta.Notes = append(run.Meta.Notes, source)
	run.Meta.Files = append(run.Meta.Files, sum)
	run.Meta.Judgments = fmt.Sprintf("%d graded results from the %s, merged with the case file's gold (the gold grades what it names, people's grades the rest)", len(human), role)
	s, err := report.ScoreCampaign(run, recs, human, cfg)
	if err != nil {
		return err
	}
	if err := report.Write(*out, s); err != nil {
		return err
	}
	if err := plots.Write(filepath.Join(*out, "plots"), s); err != nil {
		fmt.Fprintf(stderr, "score: plots: %v\n", err)
	}
	fmt.Fprintf(stdout, "%d cases, %d judgments → %s\n", s.Cases, len(human), filepath.Join(*out, "quality-summary.md"))
	fmt.Fprintln(stdout, source)
	if s.StaleGrades > 0 {
		fmt.Fprintf(stdout, "%d grades not used: their case or result changed since they were graded (stale_grade in quality-summary.md); grade those rows again\n", s.StaleGrades)
	}
	if s.Front != nil {
		fmt.Fprintf(stdout, "Pareto set (no other system better on quality and cost together): %s\n", s.Front)
	}
	for _, d := range s.Decisions {
		fmt.Fprintf(stdout, "  %-28s %-20s (%s)\n", d.Model, d.Outcome, d.Rule)
	}
	return nil
}

// defaultBaseline is the first dense system of a run, else its first.
func defaultBaseline(run *campaignfmt.Campaign) string {
	for _, s := range run.Systems {
		if len(s.Name) > 6 && s.Name[:6] == "dense/" {
			return s.Name
		}
	}
	if len(run.Systems) > 0 {
		return run.Systems[0].Name
	}
	return ""
}
