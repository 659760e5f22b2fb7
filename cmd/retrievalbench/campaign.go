package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/campaign"
	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/external"
	"github.com/retrievalbench/retrievalbench/tokens"
)

// runCampaign runs every chosen model (and a BM25 baseline) over the
// repositories of a case file and writes pools, a grading sheet and
// gold-only reports.
func runCampaign(args []string, stdout, stderr io.Writer) error {
	cfg := campaign.DefaultConfig()
	fs := newFlagSet("campaign", "usage: retrievalbench campaign -repos MANIFEST -cases CASES [-models id,DIR,…|all|none] [-bm25 config,…|all|none] [-systems SELECTION] [-k 1,3,5,10,20] [-out DIR] [-shard I/N [-shard-costs DIR]]\n"+
		"       retrievalbench campaign -merge PART,PART,... -out DIR\n\n"+
		"Runs each system over each repository, then writes run.json, part.json, results/, pooled-results.jsonl,\n"+
		"grading-sheet.csv, the reports (scored on the case file's gold alone) and plots/.\n"+
		"Fill in the sheet's grade column (0-3) and run `retrievalbench score`.\n"+
		"With -shard, runs part I of N of the cells and writes part.json and results/ only;\n"+
		"-merge writes from every part what the whole run writes (docs/sharding.md).\n\n"+
		"Systems run in this order: -bm25's, -models', then -systems'. With -systems and neither -models nor -bm25,\n"+
		"only -systems' run. The baseline is the first model, else the first system (-baseline names another).\n"+
		"-models takes model ids (built-in, or of -model-manifest: user models and embedding endpoints), model\n"+
		"folders, all, or none; -bm25 BM25 configs ("+strings.Join(bm25Configs(), ", ")+"), all, or none.\n"+
		"-systems takes a selection (docs/campaigns.md, \"Choosing systems\"):\n"+builtin.SelectionHelp+"\n"+
		"For example: -systems 'bm25/all,hybrid/rrf-bm25code-bge,rrf(bm25/porter,dense/bge-small-q),graph(bm25/porter,seeds=5)'\n\nflags:\n", stderr)
	repos := fs.String("repos", "", "repository manifest `file` (datasets/cases format, docs/cases.md; datapack entries read $RETRIEVALBENCH_DATA)")
	casesFile := fs.String("cases", "", "case `file` (JSONL, docs/cases.md; check it with retrievalbench validate)")
	modelList := fs.String("models", "all", "comma-separated embedding model `ids` of the manifest or of -model-manifest, or model folders; all ("+strings.Join(models.IDs(), ", ")+"), or none; with -systems and neither -models nor -bm25, none")
	manifest := modelManifestFlag(fs)
	bm25List := fs.String("bm25", "code-weighted", "comma-separated BM25 `configs` ("+strings.Join(bm25Configs(), ", ")+"), all, or none; with -systems and neither -models nor -bm25, none")
	externals := fs.String("systems", "", "comma-separated `selection` of any systems: system/config, system/all, all, external config FILE.json, model DIR, rrf(…), weighted(…), graph(…) (see above)")
	out := fs.String("out", "", "output `dir` (default: runs/campaign-<timestamp>)")
	fs.IntVar(&cfg.PoolDepth, "pool", cfg.PoolDepth, "top `n` hits of each system pooled per case for grading")
	fs.StringVar(&cfg.CacheDir, "cache", cache.Dir(), "cache `dir` (models, ONNX Runtime, vector stores)")
	fs.BoolVar(&cfg.NoCache, "no-cache", false, "embed every doc again (cold index cost) instead of reusing stored vectors")
	taskTimeoutFlag(fs, &cfg.TaskTimeout)
	fs.StringVar(&cfg.Name, "name", "", "dataset `name` in the reports (default: cases-<case file or its folder>)")
	verbose := fs.Bool("v", false, "log progress to stderr")
	tokenizer := fs.String("tokenizer", tokens.Default, "count the tokens of every hit with this tokenizer for the token measures (tokens@10, covered_tok@B, ndcg_tok@B) and the token budget: a pinned one's `name` (qwen3, fetched by make tokenizer), a tokenizer.json path, or none")
	shardFlag := fs.String("shard", "", "run only part `I/N` of the cells (system × repository; 1 ≤ I ≤ N, every part with the same other flags), writing part.json and results/ to -out; merge the parts with -merge")
	shardCosts := fs.String("shard-costs", "", "comma-separated campaign output `dirs` (whole, merged or parts): balance -shard by their cells' recorded wall times (default: round-robin)")
	merge := fs.String("merge", "", "comma-separated part `dirs` of a sharded campaign: write into -out what one whole run writes (no other flag but -out and -v)")
	var rf reportFlags
	rf.register(fs, "1,3,5,10,20")
	chunkFlags(fs, &cfg.Chunk)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["merge"] {
		return mergeCampaign(strings.Split(*merge, ","), *out, set, fs.NArg(), *verbose, stdout, stderr)
	}
	sh, err := shard.Parse(*shardFlag)
	if err != nil {
		return usagef("campaign: %v", err)
	}
	if *shardFlag != "" && *out == "" {
		return usagef("campaign: -shard needs -out (each part its own directory)")
	}
	if *repos == "" || *casesFile == "" || fs.NArg() != 0 {
		return badUsage(fs, "campaign: need -repos and -cases, and no arguments")
	}
	gen, err := rf.generated()
	if err != nil {
		return usagef("campaign: %v", err)
	}
	cat, err := useModelManifest(*manifest)
	if err != nil {
		return err
	}
	if set["systems"] && !set["models"] && !set["bm25"] {
		// External systems alone: the built-in defaults are for a model
		// campaign, not for comparing the systems a user names.
		*modelList, *bm25List = "none", "none"
	}
	ext, err := selector(stderr).Select(*externals)
	if err != nil {
		return selectErr("-systems", err)
	}
	specs, firstDense, err := pickSpecs(*modelList, *bm25List, len(ext))
	if err != nil {
		return usagef("campaign: %v", err)
	}
	for _, s := range ext {
		i := slices.IndexFunc(specs, func(o systems.Spec) bool { return o.Name() == s.Name() })
		switch {
		case i < 0:
			specs = append(specs, s)
		case specs[i].Hash != s.Hash:
			return usagef("campaign: -systems: %s differs from the system of that name -models or -bm25 chose", s.Name())
		}
	}
	if rf.baseline == "" {
		rf.baseline = firstDense
		if rf.baseline == "" {
			rf.baseline = specs[0].Name()
		}
	}
	if !slices.ContainsFunc(specs, func(s systems.Spec) bool { return s.Name() == rf.baseline }) {
		return usagef("campaign: -baseline %q is not one of the systems run", rf.baseline)
	}
	if cfg.Report, err = rf.config(nil); err != nil {
		return usagef("campaign: %v", err)
	}
	cfg.Cases, cfg.Repos, cfg.Specs = *casesFile, *repos, specs
	cfg.Meta = toolMeta(gen)
	if err := campaignTokenizer(&cfg, *tokenizer, set["tokenizer"], stderr); err != nil {
		return err
	}
	for _, f := range cat.Files() {
		sum, err := campaignfmt.SumFile("user model manifest", f)
		if err != nil {
			return err
		}
		cfg.Meta.Files = append(cfg.Meta.Files, sum)
	}
	cfg.Meta.Backend = "SQLite FTS5 (bm25); ONNX Runtime CPU, exact cosine search (dense)"
	if slices.ContainsFunc(specs, func(s systems.Spec) bool { return s.System == "static" }) {
		cfg.Meta.Backend += "; static embedding table lookup, exact cosine search (static)"
	}
	if slices.ContainsFunc(specs, func(s systems.Spec) bool { return s.System == "hybrid" }) {
		cfg.Meta.Backend += "; rank fusion of the members (hybrid)"
	}
	if slices.ContainsFunc(specs, func(s systems.Spec) bool { return s.System == "graph" }) {
		cfg.Meta.Backend += "; reference-graph expansion of a base system (graph)"
	}
	for _, s := range specs {
		if s.Dimension == 0 {
			continue // no embedding model (Spec.Dimension)
		}
		if m, err := models.Lookup(s.Config); err == nil {
			cfg.Meta.Models = append(cfg.Meta.Models, campaignfmt.ModelInfo{ID: m.ID, Dimension: m.Dimension, Pooling: m.Pooling, MaxTokens: m.MaxTokens,
				QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix, Fingerprint: m.Fingerprint()})
		}
	}
	if *verbose {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	if *out == "" {
		t, _ := time.Parse(time.RFC3339, gen)
		*out = filepath.Join("runs", "campaign-"+t.Format("20060102-150405"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *shardFlag != "" {
		var costs campaign.Costs
		if *shardCosts != "" {
			if costs, err = campaign.ReadCosts(strings.Split(*shardCosts, ",")); err != nil {
				return fmt.Errorf("campaign: -shard-costs: %w", err)
			}
		}
		p, err := campaign.RunPart(ctx, cfg, sh, costs, *out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "part %s: %d of %d cells → %s\n", p.Shard, len(p.Cells), len(p.Campaign.Cells), filepath.Join(*out, campaign.PartFile))
		for _, c := range p.Cells {
			fmt.Fprintf(stdout, "  %s on %s\n", c.System, c.Repo)
		}
		return nil
	}
	res, err := campaign.Run(ctx, cfg, *out)
	if err != nil {
		return err
	}
	return printCampaign(res, *out, stdout)
}

// campaignTokenizer loads the tokenizer named name into cfg (nil for
// none) and records it. The default one missing from the cache leaves the
// token measures off with a warning, as go test does; a tokenizer asked for
// by name, or a token budget, needs it.
func campaignTokenizer(cfg *campaign.Config, name string, asked bool, stderr io.Writer) error {
	budget := cfg.Report.Rules.MaxTokensRatio > 0
	if name == tokens.None {
		if budget {
			return usagef("campaign: -max-tokens-ratio needs a tokenizer, not -tokenizer none")
		}
		return nil
	}
	t, err := tokens.Load(cfg.CacheDir, name)
	switch {
	case err != nil && (asked || budget):
		return usagef("campaign: -tokenizer: %v", err)
	case err != nil:
		fmt.Fprintf(stderr, "campaign: token measures off: %v\n", err)
		return nil
	}
	cfg.Tokens, cfg.Meta.Tokenizer = t, t.ID()
	return nil
}

// mergeCampaign writes the campaign of a sharded run's parts.
func mergeCampaign(dirs []string, out string, set map[string]bool, nargs int, verbose bool, stdout, stderr io.Writer) error {
	for name := range set {
		if name != "merge" && name != "out" && name != "v" {
			return usagef("campaign: -merge takes only -out and -v (the parts carry the rest), not -%s", name)
		}
	}
	if out == "" || nargs != 0 {
		return usagef("campaign: -merge needs -out, and no arguments")
	}
	var logf func(string, ...any)
	if verbose {
		logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	res, err := campaign.Merge(dirs, out, logf)
	if err != nil {
		return err
	}
	return printCampaign(res, out, stdout)
}

// printCampaign prints what a campaign found, and fails as failedSystems
// says.
func printCampaign(res *campaign.Result, out string, stdout io.Writer) error {
	fmt.Fprintf(stdout, "%d cases, %d systems, %d failures; pool of %d results → %s\n",
		res.Summary.Cases, len(res.Campaign.Systems), len(res.Campaign.Failures), len(res.Pool), filepath.Join(out, "grading-sheet.csv"))
	width := 28 // wider for long names (a fusion's or graph's made of its members')
	for _, d := range res.Summary.Decisions {
		width = max(width, len(d.Model))
	}
	for _, d := range res.Summary.Decisions {
		fmt.Fprintf(stdout, "  %-*s %-20s (%s, gold only)\n", width, d.Model, d.Outcome, d.Rule)
	}
	if f := res.Summary.Front; f != nil {
		fmt.Fprintf(stdout, "Pareto set (quality, latency, memory, cold index cost; gold only): %s\n", f)
	}
	return failedSystems(res.Summary, out)
}

// failedSystems is the error of a campaign whose reports are written but
// some of whose systems failed every case (as make results exits non-zero
// for the bench), naming them; nil when every system ran.
func failedSystems(s *report.Summary, out string) error {
	var failed []string
	for _, ss := range s.Systems {
		if ss.Status == campaignfmt.StatusFailed {
			failed = append(failed, ss.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("campaign: %d of %d systems failed every case: %s (reports written to %s; the failures are listed in quality-summary.md)",
		len(failed), len(s.Systems), strings.Join(failed, ", "), out)
}

// selector resolves system names for a campaign: the built-in Specs
// (every model of the manifests among them, so a user model or an endpoint
// is dense/ID), and, for other items, an external system's config file
// (.json) or a model folder. A file that fails to load is a fileError (exit
// 1), not bad usage.
func selector(stderr io.Writer) builtin.Selector {
	return builtin.Selector{Specs: builtin.Specs(), Other: func(item string) (systems.Spec, bool, error) {
		if strings.HasSuffix(item, ".json") {
			specs, err := loadExternal(item)
			if err != nil {
				return systems.Spec{}, false, &fileError{err}
			}
			return specs[0], true, nil
		}
		if fi, err := os.Stat(item); err == nil && fi.IsDir() {
			m, _, warns, err := models.FromDir(item)
			if err != nil {
				return systems.Spec{}, false, &fileError{fmt.Errorf("campaign: model folder %s: %w", item, err)}
			}
			for _, w := range warns {
				fmt.Fprintf(stderr, "campaign: model folder %s: %v\n", item, w)
			}
			return dense.Spec(dense.ForModel(m)), true, nil
		}
		return systems.Spec{}, false, nil
	}}
}

// fileError is a -systems file that failed to load: the command fails (exit
// 1) with the file's error, not with its usage.
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// selectErr is err as the command reports it: a file's error as it is, any
// other selection error as bad usage naming the flag.
func selectErr(flagName string, err error) error {
	var fe *fileError
	if errors.As(err, &fe) {
		return fe.err
	}
	return usagef("campaign: %s: %v", flagName, err)
}

// pickSpecs resolves -models and -bm25 against the built-in systems: BM25
// first (the configs in the order given, or all), then the models in the
// order given. It also returns the first
// dense system, the default baseline ("" when none runs). Choosing none is
// an error unless external systems (others of them) run.
func pickSpecs(modelList, bm25 string, others int) ([]systems.Spec, string, error) {
	reg := builtin.Specs()
	find := func(system, config string) (systems.Spec, bool) { return builtin.Find(reg, system+"/"+config) }
	var specs []systems.Spec
	var bm25s []string
	for _, s := range reg {
		if s.System == "bm25" {
			bm25s = append(bm25s, s.Config)
		}
	}
	for _, c := range strings.Split(bm25, ",") {
		c = strings.TrimSpace(c)
		switch c {
		case "", "none":
			continue
		case "all":
			for _, n := range bm25s {
				s, _ := find("bm25", n)
				specs = appendNew(specs, s)
			}
			continue
		}
		s, ok := find("bm25", c)
		if !ok {
			return nil, "", fmt.Errorf("-bm25 %q: no such BM25 config (have %s, all or none)", c, strings.Join(bm25s, ", "))
		}
		specs = appendNew(specs, s)
	}
	// A model runs as dense (ONNX) or, for a static model, as static; a
	// model folder as dense/<its id>.
	findModel := func(id string) (systems.Spec, bool) {
		if s, ok := find("dense", id); ok {
			return s, true
		}
		if s, ok := find("static", id); ok {
			return s, true
		}
		if fi, err := os.Stat(id); err == nil && fi.IsDir() {
			if m, _, _, err := models.FromDir(id); err == nil {
				return dense.Spec(dense.ForModel(m)), true
			}
		}
		return systems.Spec{}, false
	}
	var ids []string
	for _, id := range models.IDs() {
		if _, ok := findModel(id); ok {
			ids = append(ids, id)
		}
	}
	if modelList != "all" {
		ids = nil
		for _, id := range strings.Split(modelList, ",") {
			id = strings.TrimSpace(id)
			if id == "" || id == "none" {
				continue
			}
			if slices.Contains(ids, id) {
				return nil, "", fmt.Errorf("-models: %q twice", id)
			}
			ids = append(ids, id)
		}
	}
	first := ""
	for _, id := range ids {
		s, ok := findModel(id)
		if !ok {
			if fi, err := os.Stat(id); err == nil && fi.IsDir() {
				_, _, _, err := models.FromDir(id)
				return nil, "", fmt.Errorf("-models: model folder %s: %w", id, err)
			}
			return nil, "", fmt.Errorf("-models: unknown model %q, or no system in the registry runs it (have %s, all or none; or a model folder)", id, strings.Join(models.IDs(), ", "))
		}
		if first == "" {
			first = s.Name()
		}
		specs = appendNew(specs, s)
	}
	if len(specs) == 0 {
		if others > 0 {
			return nil, "", nil
		}
		return nil, "", fmt.Errorf("no systems: give -models, -bm25 or -systems")
	}
	if first == "" {
		first = specs[0].Name()
	}
	return specs, first, nil
}

// bm25Configs lists the built-in BM25 config names, in order.
func bm25Configs() []string {
	var out []string
	for _, s := range bm25.Specs() {
		out = append(out, s.Config)
	}
	return out
}

// appendNew appends s unless a system of its name is already there.
func appendNew(specs []systems.Spec, s systems.Spec) []systems.Spec {
	if slices.ContainsFunc(specs, func(o systems.Spec) bool { return o.Name() == s.Name() }) {
		return specs
	}
	return append(specs, s)
}

// loadExternal reads a comma-separated list of external-system config files.
func loadExternal(list string) ([]systems.Spec, error) {
	var specs []systems.Spec
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		cfg, err := external.Load(f)
		if err != nil {
			return nil, fmt.Errorf("campaign: -systems: %w", err)
		}
		specs = append(specs, external.Spec(cfg))
	}
	return specs, nil
}
