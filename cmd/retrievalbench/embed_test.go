package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestParseTexts(t *testing.T) {
	tests := []struct {
		name, format, in string
		want             []string
		wantErr          string
		reason           string
	}{
		{"lines", "auto", "a b\n\nc\r\n", []string{"a b", "", "c"}, "", "one text per line; an empty line is an empty text; CRLF ends a line"},
		{"no-final-newline", "lines", "x\ny", []string{"x", "y"}, "", "the last line needs no newline"},
		{"empty-input", "auto", "", []string{}, "", "no input, no texts"},
		{"sniffed-jsonl", "auto", "\n{\"text\": \"hi\", \"id\": 3}\n\n{\"text\": \"\"}\n", []string{"hi", ""}, "", "a first non-blank line starting with { means JSONL; blank lines are skipped"},
		{"forced-lines", "lines", "{\"text\": \"hi\"}\n", []string{"{\"text\": \"hi\"}"}, "", "-format lines takes JSON as text"},
		{"jsonl-not-object", "jsonl", "{\"text\": \"a\"}\nplain\n", nil, "in.txt:2: bad JSON line", "a bad line is named by file and line"},
		{"jsonl-no-text", "jsonl", "{\"body\": \"a\"}\n", nil, "in.txt:1: no string field \"text\"", "the text field is required"},
		{"jsonl-number", "jsonl", "{\"text\": 5}\n", nil, "in.txt:1:", "text must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTexts("in.txt", []byte(tt.in), tt.format)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("%s: error %v, want %q", tt.reason, err, tt.wantErr)
				}
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestEmbedUsage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		reason  string
	}{
		{"no-model", nil, "-model is required", "the model cannot be guessed"},
		{"bad-as", []string{"-model", "minilm-l6-q", "-as", "doc"}, "-as \"doc\"", "only query and passage prefixes exist"},
		{"bad-format", []string{"-model", "minilm-l6-q", "-format", "csv"}, "-format \"csv\"", "only lines and jsonl are read"},
		{"unknown-model", []string{"-model", "nope"}, "unknown model", "ids come from the manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(append([]string{"embed"}, tt.args...), &out, &errb)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err) != 2 {
				t.Errorf("%s: got %v (exit %d), want usage error %q", tt.reason, err, exitCode(err), tt.wantErr)
			}
		})
	}
}

type embedRecord struct {
	TextIndex int       `json:"text_index"`
	Vector    []float32 `json:"vector"`
}

// TestEmbedCommand runs the command on the parity texts and checks its
// vectors against the Python reference, and that -as adds the prefix.
func TestEmbedCommand(t *testing.T) {
	cache := testenv.CacheDir()
	if _, err := embed.LibraryPath(cache); err != nil {
		testenv.Missing(t, testenv.ONNX, err.Error())
	}
	const id = "e5-small-q" // has a query prefix, so -as is visible
	m, err := models.Lookup(id)
	require.NoError(t, err)
	if err := models.Verify(cache, m); err != nil {
		if errors.Is(err, models.ErrMissing) {
			testenv.Missing(t, testenv.Models, err.Error())
		}
		t.Fatal(err)
	}
	// The reference of this CPU class (a quantized model's vectors depend
	// on it: docs/portability.md), at embed's TestParity bounds.
	path, madeOn := cpuclass.File(filepath.Join("..", "..", "embed", "testdata", "parity"), id+".json")
	minCos := 0.9999
	if madeOn != cpuclass.Current() {
		minCos = 0.98
		t.Logf("no %s reference of CPU class %s: checked against %s's at cosine >= %.2f", id, cpuclass.Current(), madeOn, minCos)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var ref struct {
		Cases []struct {
			Text      string    `json:"text"`
			Embedding []float32 `json:"embedding"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(data, &ref))
	require.NotEmpty(t, ref.Cases)

	in := filepath.Join(t.TempDir(), "texts.jsonl")
	var buf bytes.Buffer
	for _, c := range ref.Cases {
		require.NoError(t, json.NewEncoder(&buf).Encode(map[string]string{"text": c.Text}))
	}
	require.NoError(t, os.WriteFile(in, buf.Bytes(), 0o644))

	plain := runEmbedCmd(t, "-model", id, "-cache", cache, in)
	require.Len(t, plain, len(ref.Cases))
	for i, c := range ref.Cases {
		if plain[i].TextIndex != i {
			t.Fatalf("record %d has text_index %d", i, plain[i].TextIndex)
		}
		if cos := cosine(c.Embedding, plain[i].Vector); cos < minCos {
			t.Errorf("case %d: cosine with the Python reference (CPU class %s) %.6f, want >= %.4f", i, madeOn, cos, minCos)
		}
	}

	query := runEmbedCmd(t, "-model", id, "-cache", cache, "-as", "query", in)
	require.Len(t, query, len(ref.Cases))
	if cos := cosine(plain[0].Vector, query[0].Vector); cos > 0.9999 {
		t.Errorf("-as query gave the same vector as no prefix (cosine %.6f)", cos)
	}
}

func runEmbedCmd(t *testing.T, args ...string) []embedRecord {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(append([]string{"embed"}, args...), &out, &errb); err != nil {
		t.Fatalf("embed %v: %v\n%s", args, err, errb.String())
	}
	var recs []embedRecord
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r embedRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
		recs = append(recs, r)
	}
	return recs
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / (math.Sqrt(aa) * math.Sqrt(bb))
}
