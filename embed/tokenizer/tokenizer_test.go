package tokenizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/tokenizer"
)

var tinyVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "un", "##aff", "##able",
	"cafe", ",", "!", "中", "[", "sep", "]", "a", "##b", "é",
}

// tinyJSON builds a BERT-style tokenizer.json over tinyVocab; edit lets a
// case change any part of it.
func tinyJSON(t *testing.T, edit func(map[string]any)) []byte {
	t.Helper()
	vocab := map[string]int{}
	for i, w := range tinyVocab {
		vocab[w] = i
	}
	var added []map[string]any
	for i, w := range tinyVocab[:5] {
		added = append(added, map[string]any{"id": i, "content": w, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": true})
	}
	f := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type": "TemplateProcessing",
			"single": []any{
				map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}},
			},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{2}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{3}, "tokens": []string{"[SEP]"}},
			},
		},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 9, "vocab": vocab},
	}
	if edit != nil {
		edit(f)
	}
	data, err := json.Marshal(f)
	require.NoError(t, err)
	return data
}

func writeTiny(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	require.NoError(t, os.WriteFile(p, tinyJSON(t, edit), 0o644))
	return p
}

func TestEncode(t *testing.T) {
	tok, err := tokenizer.Load(writeTiny(t, nil))
	require.NoError(t, err)
	const CLS, SEP, UNK = 2, 3, 1
	tests := []struct {
		name, text string
		max        int
		want       []int64
		truncated  bool
		reason     string
	}{
		{"words", "Hello, World!", 0, []int64{CLS, 5, 11, 6, 12, SEP}, false, "lowercase, punctuation isolated, whitespace dropped"},
		{"wordpiece", "unaffable", 0, []int64{CLS, 7, 8, 9, SEP}, false, "greedy longest match with ## continuations"},
		{"accents", "Café", 0, []int64{CLS, 10, SEP}, false, "strip_accents null follows lowercase: NFD then marks dropped"},
		{"cjk", "中文", 0, []int64{CLS, 13, UNK, SEP}, false, "CJK ideographs become words of their own"},
		{"literal special", "x[SEP]y", 0, []int64{CLS, UNK, 3, UNK, SEP}, false, "added tokens are cut out of the raw text whole"},
		{"lowercase special is text", "[sep]", 0, []int64{CLS, 14, 15, 16, SEP}, false, "added tokens match case-sensitively before normalization"},
		{"unknown word", "unknownish", 0, []int64{CLS, UNK, SEP}, false, "a word with an unmatched part is one [UNK]"},
		{"too long word", "helloworld", 0, []int64{CLS, UNK, SEP}, false, "more than max_input_chars_per_word characters is [UNK]"},
		{"control chars", "a\u200bb\x00", 0, []int64{CLS, 17, 18, SEP}, false, "clean_text drops Cf and NUL"},
		{"whitespace kinds", "hello\u00a0world\t!", 0, []int64{CLS, 5, 6, 12, SEP}, false, "NBSP and tab split words"},
		{"empty", "", 0, []int64{CLS, SEP}, false, "special tokens only"},
		{"truncate", "hello world hello world", 4, []int64{CLS, 5, 6, SEP}, true, "maxTokens counts the special tokens"},
		{"fits exactly", "hello world", 4, []int64{CLS, 5, 6, SEP}, false, "exactly maxTokens is not truncated"},
		{"truncate inside word", "hello unaffable", 4, []int64{CLS, 5, 7, SEP}, true, "truncation cuts pieces, not words"},
		{"tiny max", "hello", 2, []int64{CLS, SEP}, true, "no room for text pieces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Encode(tt.text, tt.max)
			if diff := cmp.Diff(tt.want, got.IDs); diff != "" {
				t.Errorf("Encode(%q, %d) ids (-want +got):\n%s\nreason: %s", tt.text, tt.max, diff, tt.reason)
			}
			if got.Truncated != tt.truncated {
				t.Errorf("Truncated = %v, want %v (%s)", got.Truncated, tt.truncated, tt.reason)
			}
			for i := range got.IDs {
				if got.TypeIDs[i] != 0 || got.Mask[i] != 1 {
					t.Fatalf("position %d: type id %d, mask %d; want 0 and 1", i, got.TypeIDs[i], got.Mask[i])
				}
			}
		})
	}
}

func TestEncodeOptions(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(map[string]any)
		text   string
		want   []int64
		reason string
	}{
		{
			name: "strip_accents false",
			edit: func(f map[string]any) { f["normalizer"].(map[string]any)["strip_accents"] = false },
			text: "é", want: []int64{2, 19, 3},
			reason: "an explicit false keeps accents even when lowercasing",
		},
		{
			name: "BertProcessing",
			edit: func(f map[string]any) {
				f["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 3}, "cls": []any{"[CLS]", 2}}
			},
			text: "hello", want: []int64{2, 5, 3},
			reason: "BertProcessing adds [CLS] and [SEP] too",
		},
		{
			name: "RobertaProcessing",
			edit: func(f map[string]any) {
				f["post_processor"] = map[string]any{"type": "RobertaProcessing", "sep": []any{"</s>", 3}, "cls": []any{"<s>", 2},
					"trim_offsets": true, "add_prefix_space": false}
			},
			text: "hello", want: []int64{2, 5, 3},
			reason: "RobertaProcessing (MPNet) puts cls before and sep after a single text",
		},
		{
			name: "no post_processor",
			edit: func(f map[string]any) { f["post_processor"] = nil },
			text: "hello", want: []int64{5},
			reason: "without a post-processor no special tokens are added",
		},
		{
			name: "normalizer sequence",
			edit: func(f map[string]any) {
				f["normalizer"] = map[string]any{"type": "Sequence", "normalizers": []any{
					map[string]any{"type": "NFD"}, map[string]any{"type": "Lowercase"}, map[string]any{"type": "StripAccents"}}}
			},
			text: "CAFÉ", want: []int64{2, 10, 3},
			reason: "Sequence of NFD, Lowercase, StripAccents",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := tokenizer.Load(writeTiny(t, tt.edit))
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, tok.Encode(tt.text, 0).IDs); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(map[string]any)
		raw    string
		want   []string // substrings of the error besides the path
		reason string
	}{
		{
			name: "BPE dropout",
			edit: func(f map[string]any) {
				f["model"] = map[string]any{"type": "BPE", "dropout": 0.1, "vocab": map[string]int{"a": 0}, "merges": []string{}}
			},
			want: []string{`BPE dropout 0.1`}, reason: "dropout makes ids random",
		},
		{
			name: "Unigram without unk",
			edit: func(f map[string]any) { f["model"] = map[string]any{"type": "Unigram", "vocab": [][]any{{"a", 0.0}}} },
			want: []string{`Unigram unk_id missing`}, reason: "unknown characters need an id",
		},
		{
			name: "Unigram byte fallback",
			edit: func(f map[string]any) {
				f["model"] = map[string]any{"type": "Unigram", "unk_id": 0, "byte_fallback": true, "vocab": [][]any{{"a", 0.0}}}
			},
			want: []string{`byte_fallback is not supported`}, reason: "byte pieces are not implemented",
		},
		{
			name: "BPE without type",
			edit: func(f map[string]any) {
				f["model"] = map[string]any{"vocab": map[string]int{"a": 0}, "merges": []string{"a b"}}
			},
			want: []string{`merge 1 ("a", "b")`}, reason: "old files name no type; merges mean BPE, whose merges must name vocabulary tokens",
		},
		{
			name: "ByteLevel pre-tokenizer",
			edit: func(f map[string]any) { f["pre_tokenizer"] = map[string]any{"type": "ByteLevel"} },
			want: []string{`pre_tokenizer type "ByteLevel"`}, reason: "GPT-style byte-level splitting is not BERT's",
		},
		{
			name: "unknown normalizer",
			edit: func(f map[string]any) { f["normalizer"] = map[string]any{"type": "Precompiled"} },
			want: []string{`precompiled_charsmap of 0 bytes is too short`}, reason: "a Precompiled normalizer needs its character map",
		},
		{
			name: "unknown post-processor",
			edit: func(f map[string]any) {
				f["post_processor"] = map[string]any{"type": "Sequence", "processors": []any{map[string]any{"type": "Prepend"}}}
			},
			want: []string{`post_processor 1 of the sequence`, `type "Prepend"`}, reason: "only templates, BERT, RoBERTa and ByteLevel",
		},
		{
			name: "unk not in vocab",
			edit: func(f map[string]any) { f["model"].(map[string]any)["unk_token"] = "<unk>" },
			want: []string{`unk_token "<unk>"`}, reason: "an unknown token with no id cannot be emitted",
		},
		{
			name: "not JSON",
			raw:  "{\"model\": ",
			want: []string{"not a tokenizer.json"}, reason: "truncated file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p string
			if tt.raw != "" {
				p = filepath.Join(t.TempDir(), "tokenizer.json")
				require.NoError(t, os.WriteFile(p, []byte(tt.raw), 0o644))
			} else {
				p = writeTiny(t, tt.edit)
			}
			_, err := tokenizer.Load(p)
			require.Error(t, err, tt.reason)
			for _, w := range append([]string{p}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q (%s)", err, w, tt.reason)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.json")
	_, err := tokenizer.Load(p)
	require.Error(t, err)
	require.Contains(t, err.Error(), p)
}

// TestConcurrentEncode backs the claim that a Tokenizer is safe for
// concurrent use (run with -race).
func TestConcurrentEncode(t *testing.T) {
	tok, err := tokenizer.Load(writeTiny(t, nil))
	require.NoError(t, err)
	texts := []string{"Hello, World!", "unaffable café", "x[SEP]y 中文", strings.Repeat("hello world ", 500)}
	want := make([][]int64, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s, 64).IDs
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(texts)
				if got := tok.Encode(texts[k], 64).IDs; !slices.Equal(got, want[k]) {
					t.Errorf("goroutine %d: text %d encoded differently", g, k)
					return
				}
			}
		})
	}
	wg.Wait()
}
