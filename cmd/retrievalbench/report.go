package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/report/plots"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// reportFlags are the flags campaign, score and report share.
type reportFlags struct {
	ks        string
	baseline  string
	timestamp string
	minCases  int
	maxRSS    float64
	maxTokens float64
	// set names the flags given on the command line (visit); nil means
	// every flag counts as given.
	set map[string]bool
}

func (rf *reportFlags) register(fs *flag.FlagSet, ksDefault string) {
	fs.StringVar(&rf.ks, "k", ksDefault, "comma-separated `cutoffs` of hit@k, recall@k, ndcg@k and judged@k")
	fs.StringVar(&rf.baseline, "baseline", "", "`system/config` the decision rules compare the others with (default: the campaign's recorded baseline, else the first dense model)")
	fs.StringVar(&rf.timestamp, "timestamp", "", "fixed `RFC3339` time to write as the report's generation time (default: now), for byte-identical reports")
	d := report.DefaultDecisionRules()
	fs.IntVar(&rf.minCases, "min-cases", d.MinCases, "paired cases a decision needs (default: the campaign's recorded rule)")
	fs.Float64Var(&rf.maxRSS, "max-rss-mb", d.MaxPeakRSSMB, "memory budget of the decision rules, in `MiB` (0 = none; default: the campaign's recorded rule)")
	fs.Float64Var(&rf.maxTokens, "max-tokens-ratio", d.MaxTokensRatio, "token budget of the decision rules: a gain is a default only if its tokens@10 (the context of its top 10 hits, counted by -tokenizer) is not significantly over this `ratio` of the baseline's (0 = none; default: the campaign's recorded rule)")
}

// visit notes which of fs's flags the command line gave: only those
// override recorded rules (configOn).
func (rf *reportFlags) visit(fs *flag.FlagSet) {
	rf.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { rf.set[f.Name] = true })
}

func (rf *reportFlags) given(name string) bool { return rf.set == nil || rf.set[name] }

// config builds the report config from the defaults; ks "" keeps def.
func (rf *reportFlags) config(def []int) (report.Config, error) {
	base := report.DefaultConfig()
	base.Ks = def
	cfg, _, err := rf.configOn(base)
	return cfg, err
}

// configOn is base with the flags given on the command line applied; it
// also returns those flags ("-baseline", ...) in order.
func (rf *reportFlags) configOn(base report.Config) (report.Config, []string, error) {
	cfg := base
	cfg.Rules.Gains = slices.Clone(base.Rules.Gains)
	var over []string
	if rf.ks != "" && rf.given("k") {
		ks, err := parseInts(rf.ks)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Ks = ks
		over = append(over, "-k")
	}
	if rf.baseline != "" && rf.given("baseline") {
		cfg.Rules.Baseline = rf.baseline
		over = append(over, "-baseline")
	}
	if rf.given("min-cases") {
		cfg.Rules.MinCases = rf.minCases
		over = append(over, "-min-cases")
	}
	if rf.given("max-rss-mb") {
		cfg.Rules.MaxPeakRSSMB = rf.maxRSS
		over = append(over, "-max-rss-mb")
	}
	if rf.given("max-tokens-ratio") {
		cfg.Rules.MaxTokensRatio = rf.maxTokens
		over = append(over, "-max-tokens-ratio")
	}
	return cfg, over, cfg.Validate()
}

// campaignConfig is the config a later command (score, gate) decides a
// campaign's run with: the rules, baseline and statistics its run.json
// records, with the flags given on the command line applied; a run.json
// that records none gets the defaults and the first dense system as
// baseline. source says which, for the command to print.
func (rf *reportFlags) campaignConfig(run *campaignfmt.Campaign) (cfg report.Config, source string, err error) {
	base, recorded := report.Recorded(run.Meta)
	cfg, over, err := rf.configOn(base)
	if err != nil {
		return cfg, "", err
	}
	source = "the campaign's (run.json)"
	if !recorded {
		source = "the defaults (run.json records none)"
	}
	if cfg.Rules.Baseline == "" {
		cfg.Rules.Baseline = defaultBaseline(run)
		source += ", baseline the first dense system"
	}
	if !slices.ContainsFunc(run.Systems, func(s campaignfmt.SystemCost) bool { return s.Name == cfg.Rules.Baseline }) {
		return cfg, "", fmt.Errorf("baseline %q is not one of the run's systems", cfg.Rules.Baseline)
	}
	if len(over) > 0 {
		source += ", overridden by " + strings.Join(over, ", ")
	}
	return cfg, fmt.Sprintf("decision rules and statistics: %s; baseline %s", source, cfg.Rules.Baseline), nil
}

func (rf *reportFlags) generated() (string, error) {
	if rf.timestamp == "" {
		return time.Now().UTC().Format(time.RFC3339), nil
	}
	t, err := time.Parse(time.RFC3339, rf.timestamp)
	if err != nil {
		return "", fmt.Errorf("-timestamp: %w", err)
	}
	return t.UTC().Format(time.RFC3339), nil
}

func parseInts(s string) ([]int, error) {
	var ks []int
	for _, p := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || k <= 0 {
			return nil, fmt.Errorf("-k: %q is not a positive integer", p)
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	sort.Ints(ks)
	return ks, nil
}

// toolMeta fills what the binary knows about itself and the machine.
func toolMeta(generated string) campaignfmt.Meta {
	m := campaignfmt.Meta{Tool: "retrievalbench", Version: "(devel)", Commit: "unknown", Generated: generated, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			m.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				m.Commit = s.Value
			}
		}
	}
	if m.Commit == "unknown" {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			m.Commit = strings.TrimSpace(string(out))
		}
	}
	host, _ := os.Hostname()
	m.Host = fmt.Sprintf("%s (%s/%s, %d CPUs)", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	return m
}

// runReport writes reports and plots from per-task JSONL results, such as
// `go test ./bench -results DIR` leaves: one report folder per dataset and
// split, since numbers of different datasets never share a table or plot.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "usage: retrievalbench report -results DIR [-out DIR] [flags]\n\n"+
		"Writes quality-summary.md/.json, per-query-results.jsonl, per-model-ranking.csv,\n"+
		"per-repo-summary.csv, per-intent-summary.csv, regressions.md and plots/ for each\n"+
		"dataset and split of the results (a folder DATASET.SPLIT under -out). The measures\n"+
		"are the ones the records carry; with -baseline the decision rules decide on those of them\n"+
		"they know.\n\nflags:\n", stderr)
	results := fs.String("results", "", "`dir` (or file) of per-task JSONL results")
	out := fs.String("out", "", "output `dir` (default: the results dir)")
	var rf reportFlags
	rf.register(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *results == "" || fs.NArg() != 0 {
		return badUsage(fs, "report: need -results and no arguments")
	}
	if *out == "" {
		*out = *results
		if st, err := os.Stat(*results); err == nil && !st.IsDir() {
			*out = filepath.Dir(*results)
		}
	}
	gen, err := rf.generated()
	if err != nil {
		return usagef("report: %v", err)
	}
	recs, err := resultfmt.ReadRecords(*results)
	if err != nil {
		return err
	}
	groups := map[string][]resultfmt.Record{}
	for _, r := range recs {
		k := r.Dataset + "." + r.Split
		groups[k] = append(groups[k], r)
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		rs := groups[k]
		measureSet := map[string]bool{}
		for _, r := range rs {
			for m := range r.Values {
				measureSet[m] = true
			}
		}
		cfg, err := rf.config([]int{10})
		if err != nil {
			return usagef("report: %v", err)
		}
		cfg.Only = slices.Sorted(maps.Keys(measureSet))
		var gains []report.Gain
		for _, g := range cfg.Rules.Gains {
			if measureSet[g.Measure] {
				gains = append(gains, g)
			}
		}
		cfg.Rules.Gains = gains
		if !measureSet[cfg.Rules.Primary] && len(cfg.Only) > 0 {
			cfg.Rules.Primary = cfg.Only[0]
		}
		if rf.baseline == "" {
			cfg.Rules.Gains = nil // no decision without a named baseline
		}
		s, err := report.Summarize(report.Input{Records: rs}, cfg)
		if err != nil {
			return fmt.Errorf("report %s: %w", k, err)
		}
		meta := toolMeta(gen)
		meta.Dataset, meta.Split, meta.Ks = s.Meta.Dataset, s.Meta.Split, s.Meta.Ks
		meta.Judgments = "as recorded by the harness judge (gold of the dataset)"
		s.Meta = meta
		dir := filepath.Join(*out, k)
		if err := report.Write(dir, s); err != nil {
			return err
		}
		if err := plots.Write(filepath.Join(dir, "plots"), s); err != nil {
			fmt.Fprintf(stderr, "report %s: %v\n", k, err)
		}
		fmt.Fprintf(stdout, "%s: %d systems, %d cases → %s\n", k, len(s.Systems), s.Cases, dir)
	}
	return nil
}
