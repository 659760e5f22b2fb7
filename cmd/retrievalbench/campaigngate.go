package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// runCampaignGate compares two campaign runs on the same case file, system
// by system with paired tests, and exits 1 when a system regressed: the
// campaign's counterpart of the golden check. Bad usage and unreadable
// runs exit 2.
func runCampaignGate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("campaign-gate", "usage: retrievalbench campaign-gate [-sheet FILLED.csv | -labels labels.jsonl] [flags] OLD_RUN NEW_RUN\n\n"+
		"Scores two campaign runs (output dirs with run.json and results/) with the same grades, pairs\n"+
		"them on the cases whose query and gold are unchanged, and tests each system's gate measures new\n"+
		"against old (paired bootstrap, Holm-corrected over the systems). Exits 1 when a system drops a\n"+
		"gate measure by its threshold significantly, fails every case, or is missing from the new run;\n"+
		"latency is shown, not gated (it moves with the load); under a token budget (-max-tokens-ratio,\n"+
		"or the run's recorded one) so is a system whose tokens@10 grew significantly past that ratio.\n"+
		"The rules and statistics are the new\n"+
		"run's recorded ones unless a flag overrides them.\n\nflags:\n", stderr)
	sheet := fs.String("sheet", "", "filled grading-sheet `csv` applied to both runs")
	labels := fs.String("labels", "", "labels `jsonl` applied to both runs, instead of -sheet")
	var rf reportFlags
	rf.register(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 || (*sheet != "" && *labels != "") {
		return badUsage(fs, "campaign-gate: want two run dirs, OLD_RUN and NEW_RUN, and at most one of -sheet and -labels")
	}
	rf.visit(fs)
	var human []report.Judgment
	var err error
	switch {
	case *sheet != "":
		human, err = report.ReadSheet(*sheet)
	case *labels != "":
		human, err = report.ReadLabels(*labels)
	}
	if err != nil {
		return usagef("campaign-gate: %v", err)
	}
	type loaded struct {
		run  *campaignfmt.Campaign
		recs []resultfmt.Record
	}
	var runs [2]loaded
	for i, dir := range fs.Args() {
		run, err := campaignfmt.Read(filepath.Join(dir, "run.json"))
		if err != nil {
			return usagef("campaign-gate: %v", err)
		}
		recs, err := resultfmt.ReadRecords(filepath.Join(dir, "results"))
		if err != nil {
			return usagef("campaign-gate: %v", err)
		}
		runs[i] = loaded{run, recs}
	}
	if a, b := runs[0].run.Meta.Dataset, runs[1].run.Meta.Dataset; a != b {
		return usagef("campaign-gate: the runs are of different case files (datasets %q and %q)", a, b)
	}
	cfg, source, err := rf.campaignConfig(runs[1].run)
	if err != nil {
		return usagef("campaign-gate: %s: %v", fs.Arg(1), err)
	}
	var sums [2]*report.Summary
	for i, l := range runs {
		c := cfg
		if !containsSystem(l.run, c.Rules.Baseline) {
			c.Rules.Baseline = "" // the old run decides against its own first system
		}
		if sums[i], err = report.ScoreCampaign(l.run, l.recs, human, c); err != nil {
			return fmt.Errorf("campaign-gate: %s: %w", fs.Arg(i), err)
		}
	}
	g := report.CompareRuns(sums[0], sums[1], cfg.Rules)
	fmt.Fprintln(stdout, source)
	for i, s := range sums {
		if s.StaleGrades > 0 {
			fmt.Fprintf(stdout, "%s: %d grades stale (case or result changed), not used\n", fs.Arg(i), s.StaleGrades)
		}
	}
	fmt.Fprint(stdout, g.Text())
	if g.Failed() {
		return fmt.Errorf("campaign-gate: %s regressed against %s", fs.Arg(1), fs.Arg(0))
	}
	fmt.Fprintln(stdout, "no regression")
	return nil
}

func containsSystem(run *campaignfmt.Campaign, name string) bool {
	for _, s := range run.Systems {
		if s.Name == name {
			return true
		}
	}
	return false
}
