package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
)

// manifestEntry is a folder model as `models add` writes it into a user
// manifest: every field explicit, files pinned, no sources.
type manifestEntry struct {
	ID            string        `json:"id"`
	Dir           string        `json:"dir"`
	Name          string        `json:"name"`
	ModelCard     string        `json:"model_card"`
	Licence       string        `json:"licence"`
	Dimension     int           `json:"dimension"`
	Pooling       string        `json:"pooling"`
	MaxTokens     int           `json:"max_tokens"`
	MaxTokensNote string        `json:"max_tokens_note,omitempty"`
	QueryPrefix   string        `json:"query_prefix"`
	PassagePrefix string        `json:"passage_prefix"`
	Normalize     *bool         `json:"normalize,omitempty"`
	HiddenSize    int           `json:"hidden_size,omitempty"`
	Output        string        `json:"output,omitempty"`
	PaddingSide   string        `json:"padding_side,omitempty"`
	Files         []models.File `json:"files"`
}

func runModelsAdd(args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("models add", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprintln(stderr, modelsUsage) }
	manifest := fset.String("model-manifest", "", "user model manifest `file` to write the model into (created when missing)")
	asJSON := fset.Bool("json", false, "print the manifest entry as JSON")
	repin := fset.Bool("repin", false, "pin again the files of the -model-manifest entry -id (default: the folder's name) after its folder changed, keeping the entry's other fields but those flags set now")
	onnx := fset.String("onnx", "", "the graph's `path` inside DIR (default model.onnx, else onnx/model.onnx)")
	id := fset.String("id", "", "model `id` (default: the folder's name)")
	pooling := fset.String("pooling", "", "pooling: cls, mean or lasttoken")
	dim := fset.Int("dimension", 0, "vector dimension (below the graph's width: Matryoshka truncation)")
	normalize := fset.Bool("normalize", true, "scale vectors to unit length (false: rank by dot product)")
	output := fset.String("output", "", "graph output to read (default: last_hidden_state, token_embeddings or sentence_embedding)")
	padding := fset.String("padding-side", "", "pad batches on the right or left")
	maxTok := fset.Int("max-tokens", 0, "tokens per text, special tokens included")
	qp := fset.String("query-prefix", "", "text put before every query")
	pp := fset.String("passage-prefix", "", "text put before every passage")
	licence := fset.String("licence", "", "the model's licence")
	name := fset.String("name", "", "what the model is, in words")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	if fset.NArg() != 1 {
		return usagef("models add: want one model folder, got %d arguments", fset.NArg())
	}
	dir := fset.Arg(0)
	if *repin && *manifest == "" {
		return usagef("models add: -repin rewrites an entry of -model-manifest: give it")
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	m, derived, warnings, err := models.FromDirWith(dir, filepath.ToSlash(*onnx))
	if err != nil {
		return err
	}
	// The graph must be a whole ONNX file; its outputs' shapes say the
	// width the folder's files claim.
	var graph string
	var outs []onnxOutput
	if _, ok := m.File(models.ModelFile); ok {
		graph = m.Path("", models.ModelFile)
		if outs, err = readONNX(graph); err != nil {
			return fmt.Errorf("models add: %w", err)
		}
	}
	// Flags the user set override what the folder says.
	fset.Visit(func(f *flag.Flag) {
		from := "-" + f.Name
		switch f.Name {
		case "id":
			m.ID = *id
		case "pooling":
			m.Pooling = *pooling
		case "dimension":
			// A smaller dimension than the graph's output is a Matryoshka
			// truncation: the output's width becomes hidden_size.
			w := m.Width()
			if _, gw := graphWidth(outs, *output); gw > 0 {
				w = int(gw) // the graph's own width over what the folder says
			}
			m.HiddenSize = 0
			if *dim < w {
				m.HiddenSize = w
				derived = setDerived(derived, "hidden_size", strconv.Itoa(w), "the graph's width, kept for -dimension "+strconv.Itoa(*dim))
			}
			m.Dimension = *dim
		case "normalize":
			m.Normalize = normalize
		case "output":
			m.Output = *output
		case "padding-side":
			m.PaddingSide = *padding
		case "max-tokens":
			m.MaxTokens, m.MaxTokensNote = *maxTok, "set with -max-tokens"
		case "query-prefix":
			m.QueryPrefix = *qp
		case "passage-prefix":
			m.PassagePrefix = *pp
		case "licence":
			m.Licence = *licence
		case "name":
			m.Name = *name
		default:
			return
		}
		key, v := strings.ReplaceAll(f.Name, "-", "_"), f.Value.String()
		if strings.HasSuffix(key, "_prefix") {
			v = strconv.Quote(v)
		}
		derived = setDerived(derived, key, v, from)
	})
	if m.Dimension == 0 {
		return usagef("models add: %s gives no dimension (no 1_Pooling/config.json or config.json hidden_size): give -dimension", dir)
	}
	if graph != "" {
		// The width the embedder will check, named by where it came from.
		if name, w := graphWidth(outs, m.Output); w > 0 && int(w) != m.Width() {
			field := "dimension"
			if m.HiddenSize != 0 {
				field = "hidden_size"
			}
			from := "?"
			for _, d := range derived {
				if d.Field == field {
					from = d.From
				}
			}
			return fmt.Errorf("models add: %s: the graph's output %s has width %d, but %s is %d (from %s); give -dimension %d (or a smaller -dimension for Matryoshka truncation)",
				graph, name, w, field, m.Width(), from, w)
		}
	}
	probe, err := models.Builtin()
	if err != nil {
		return err
	}
	if err := probe.Add(m); err != nil {
		return fmt.Errorf("models add: %w", err)
	}
	entry := manifestEntry{
		ID: m.ID, Dir: m.Dir, Name: m.Name, ModelCard: m.ModelCard, Licence: m.Licence, Dimension: m.Dimension,
		Pooling: m.Pooling, MaxTokens: m.MaxTokens, MaxTokensNote: m.MaxTokensNote,
		QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix, Files: m.Files,
		Normalize: m.Normalize, HiddenSize: m.HiddenSize, Output: m.Output, PaddingSide: m.PaddingSide,
	}
	if *manifest != "" {
		if *repin {
			if entry, err = repinInManifest(*manifest, entry, set); err != nil {
				return err
			}
		} else if err := addToManifest(*manifest, entry); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(entry)
	}
	fmt.Fprintf(stdout, "model %s, read in place from %s\n\n", m.ID, m.Dir)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tVALUE\tFROM")
	for _, d := range derived {
		if strings.HasPrefix(d.Field, "files.") {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Field, d.Value, d.From)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(tw, "FILE\tPATH\tSIZE\tSHA256")
	for _, f := range m.Files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", f.Name, f.Path, f.Size, f.SHA256)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(stdout, "warning:", w)
	}
	if *repin {
		fmt.Fprintf(stdout, "\nfiles of %s pinned again in %s (its other fields kept)\n", entry.ID, *manifest)
	} else if *manifest != "" {
		fmt.Fprintf(stdout, "\nwritten to %s; use it with -model-manifest %s or $%s\n", *manifest, *manifest, models.EnvManifest)
	} else {
		fmt.Fprintf(stdout, "\nnot written anywhere: add -model-manifest FILE to keep it (or -json for the entry)\n")
	}
	return nil
}

func setDerived(ds []models.Derived, field, value, from string) []models.Derived {
	for i := range ds {
		if ds[i].Field == field {
			ds[i].Value, ds[i].From = value, from
			return ds
		}
	}
	return append(ds, models.Derived{Field: field, Value: value, From: from})
}

// addToManifest writes entry into the user manifest at path (creating it),
// its dir relative to the manifest's folder when inside it. An entry of
// the same id is an error: ids are how goldens and stores name a model.
func addToManifest(path string, entry manifestEntry) error {
	var top struct {
		Models []json.RawMessage `json:"models"`
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if _, err := models.ParseUser(path, data); err != nil {
			return fmt.Errorf("models add: %w", err)
		}
		if err := json.Unmarshal(data, &top); err != nil {
			return fmt.Errorf("models add: %s: %w", path, err)
		}
	}
	absManifest, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(filepath.Dir(absManifest), entry.Dir); err == nil && filepath.IsLocal(rel) {
		entry.Dir = filepath.ToSlash(rel)
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	top.Models = append(top.Models, raw)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		return err
	}
	if _, err := models.ParseUser(path, buf.Bytes()); err != nil {
		return fmt.Errorf("models add: %w", err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// repinFlags maps the flags of models add to the entry fields they set:
// what a re-pin takes from this run rather than from the entry.
var repinFlags = map[string]func(dst *manifestEntry, src manifestEntry){
	"pooling":        func(d *manifestEntry, s manifestEntry) { d.Pooling = s.Pooling },
	"dimension":      func(d *manifestEntry, s manifestEntry) { d.Dimension, d.HiddenSize = s.Dimension, s.HiddenSize },
	"normalize":      func(d *manifestEntry, s manifestEntry) { d.Normalize = s.Normalize },
	"output":         func(d *manifestEntry, s manifestEntry) { d.Output = s.Output },
	"padding-side":   func(d *manifestEntry, s manifestEntry) { d.PaddingSide = s.PaddingSide },
	"max-tokens":     func(d *manifestEntry, s manifestEntry) { d.MaxTokens, d.MaxTokensNote = s.MaxTokens, s.MaxTokensNote },
	"query-prefix":   func(d *manifestEntry, s manifestEntry) { d.QueryPrefix = s.QueryPrefix },
	"passage-prefix": func(d *manifestEntry, s manifestEntry) { d.PassagePrefix = s.PassagePrefix },
	"licence":        func(d *manifestEntry, s manifestEntry) { d.Licence = s.Licence },
	"name":           func(d *manifestEntry, s manifestEntry) { d.Name = s.Name },
}

// repinInManifest replaces the pins (files) of the entry of the manifest at
// path whose id is entry's, which must read the same folder, keeping its
// other fields but those the flags in set give; it returns the entry
// written. The fix Verify prints for a changed folder runs this.
func repinInManifest(path string, entry manifestEntry, set map[string]bool) (manifestEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return entry, fmt.Errorf("models add -repin: %w", err)
	}
	if _, err := models.ParseUser(path, data); err != nil {
		return entry, fmt.Errorf("models add -repin: %w", err)
	}
	var top struct {
		Models []json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return entry, fmt.Errorf("models add -repin: %s: %w", path, err)
	}
	absManifest, err := filepath.Abs(path)
	if err != nil {
		return entry, err
	}
	for i, raw := range top.Models {
		var old manifestEntry
		if err := json.Unmarshal(raw, &old); err != nil || old.ID != entry.ID {
			continue
		}
		oldDir := filepath.FromSlash(old.Dir)
		if !filepath.IsAbs(oldDir) {
			oldDir = filepath.Join(filepath.Dir(absManifest), oldDir)
		}
		if filepath.Clean(oldDir) != filepath.Clean(entry.Dir) {
			return entry, fmt.Errorf("models add -repin: %s: entry %q reads %s, not %s; re-pin that folder, or add this one under another -id", path, entry.ID, oldDir, entry.Dir)
		}
		next := old
		next.Files = entry.Files
		for name, copyField := range repinFlags {
			if set[name] {
				copyField(&next, entry)
			}
		}
		b, err := json.Marshal(next)
		if err != nil {
			return entry, err
		}
		top.Models[i] = b
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(top); err != nil {
			return entry, err
		}
		if _, err := models.ParseUser(path, buf.Bytes()); err != nil {
			return entry, fmt.Errorf("models add -repin: %w", err)
		}
		return next, atomicfile.WriteFile(path, buf.Bytes())
	}
	return entry, fmt.Errorf("models add -repin: %s has no entry %q to pin again (add it without -repin)", path, entry.ID)
}
