package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/embed"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/fileline"
)

const embedUsage = `usage: retrievalbench embed -model ID|DIR [-model-manifest FILE] [-as query|passage] [-format auto|lines|jsonl] [-cache DIR] [-batch N] [file ...]

embed reads texts from the files (or standard input, also as "-") and
writes one JSON line per text: {"text_index": N, "vector": [...]}, with
N counting from 0 across all inputs and the vector L2-normalised.

Input formats:
  lines  every line is one text (a final newline ends the last line; a
         trailing "\r" is dropped; empty lines are empty texts)
  jsonl  every non-blank line is a JSON object with a string field "text"
  auto   jsonl when the first non-blank line of the input starts with "{",
         else lines (the default; decided per input)

The model's query or passage prefix (e.g. "query: " for e5) is added only
when -as asks for it, so the output can be compared with other
implementations that take the text as it is.

-model takes a model id of the built-in manifest or of the user model
manifests (-model-manifest, else $RETRIEVALBENCH_MODEL_MANIFEST), or a
folder holding a sentence-transformers / Optimum export, read in place with
the fields "retrievalbench models add DIR" shows. A user model of kind
endpoint is embedded by its OpenAI-compatible server (docs/models.md).`

// embedChunk is how many texts are embedded and written at a time, so
// output starts early and memory stays bounded on large inputs.
const embedChunk = 256

func runEmbed(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, embedUsage) }
	modelID := fs.String("model", "", "model `id` (see `retrievalbench models list`) or model folder")
	manifest := modelManifestFlag(fs)
	as := fs.String("as", "", "add the model's prefix: query or passage (default: none)")
	format := fs.String("format", "auto", "input format: auto, lines or jsonl")
	cache := fs.String("cache", cache.Dir(), "cache root holding the models")
	batch := fs.Int("batch", 0, "texts per model run (0: the embed package's default)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelID == "" {
		return badUsage(fs, "embed: -model is required (one of %s)", strings.Join(models.IDs(), ", "))
	}
	if *as != "" && *as != "query" && *as != "passage" {
		return usagef("embed: -as %q: want query or passage", *as)
	}
	if *format != "auto" && *format != "lines" && *format != "jsonl" {
		return usagef("embed: -format %q: want auto, lines or jsonl", *format)
	}
	if *batch < 0 {
		return usagef("embed: -batch %d: want >= 0", *batch)
	}
	cat, err := useModelManifest(*manifest)
	if err != nil {
		return err
	}
	m, err := cat.Lookup(*modelID)
	if errors.Is(err, models.ErrUnknownModel) {
		if st, serr := os.Stat(*modelID); serr == nil && st.IsDir() {
			m, _, _, err = models.FromDir(*modelID)
			if err != nil {
				return fmt.Errorf("embed: %w", err)
			}
		}
	}
	if err != nil {
		return usagef("embed: %v", err)
	}

	inputs := fs.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	var texts []string
	for _, in := range inputs {
		ts, err := readTextsFrom(in, *format)
		if err != nil {
			return err
		}
		texts = append(texts, ts...)
	}

	var e interface {
		Embed(ctx context.Context, texts []string, prefix string) ([][]float32, error)
		Close() error
	}
	var onnx *embed.Embedder
	if m.IsEndpoint() {
		ep, err := embed.NewEndpoint(m, nil)
		if err != nil {
			return err
		}
		ep.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) } // each retry
		e = ep
	} else {
		cfg := embed.DefaultConfig(m, *cache)
		cfg.BatchSize = *batch
		if onnx, err = embed.New(cfg); err != nil {
			return err
		}
		e = onnx
	}
	defer e.Close()
	prefix := ""
	switch *as {
	case "query":
		prefix = m.QueryPrefix
	case "passage":
		prefix = m.PassagePrefix
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	for lo := 0; lo < len(texts); lo += embedChunk {
		hi := min(lo+embedChunk, len(texts))
		vecs, err := e.Embed(ctx, texts[lo:hi], prefix)
		if err != nil {
			return err
		}
		for i, v := range vecs {
			rec := struct {
				TextIndex int       `json:"text_index"`
				Vector    []float32 `json:"vector"`
			}{lo + i, v}
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if onnx == nil {
		return nil
	}
	if s := onnx.Stats(); s.Truncated > 0 {
		fmt.Fprintf(stderr, "embed: %d of %d texts truncated at %d tokens\n", s.Truncated, s.Texts, m.MaxTokens)
	}
	return nil
}

// readTextsFrom reads the texts of one input ("-" is standard input).
func readTextsFrom(name, format string) ([]string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(os.Stdin)
		name = "<stdin>"
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return parseTexts(name, data, format)
}

// parseTexts splits data into texts per format (see embedUsage); errors
// name the input and line.
func parseTexts(name string, data []byte, format string) ([]string, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline ends a line, it does not start one
	}
	if format == "auto" {
		format = "lines"
		for _, l := range lines {
			if t := bytes.TrimSpace([]byte(l)); len(t) > 0 {
				if t[0] == '{' {
					format = "jsonl"
				}
				break
			}
		}
	}
	texts := make([]string, 0, len(lines))
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if format == "lines" {
			texts = append(texts, l)
			continue
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		var rec struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			return nil, fileline.Errorf(name, i+1, "bad JSON line: %v", err)
		}
		if rec.Text == nil {
			return nil, fileline.Errorf(name, i+1, "no string field \"text\"")
		}
		texts = append(texts, *rec.Text)
	}
	return texts, nil
}
