package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// bpeDir holds byte-level BPE tokenizers trained with Hugging Face
// tokenizers by testdata/bpe/build.py, and that library's ids for code and
// prose in the six chunker languages (reference.json).
const bpeDir = "testdata/bpe"

type bpeReference struct {
	Generator string   `json:"generator"`
	Texts     []string `json:"texts"`
	Truncate  int      `json:"truncate"`
	HF        struct {
		Version string `json:"version"`
		Files   []struct {
			Name      string    `json:"name"`
			IDs       [][]int64 `json:"ids"`
			Truncated [][]int64 `json:"truncated"`
		} `json:"files"`
	} `json:"tokenizers"`
}

// TestBPEParity: for each trained tokenizer — GPT-2/RoBERTa shape
// (ByteLevel regex, add_prefix_space, RobertaProcessing), Qwen2 shape (NFC,
// Split regex with single digits, end-of-text template), Llama 3 shape
// (digits in threes, ignore_merges, ByteLevel+Template post-processors) and
// byte fallback (Metaspace, <0xXX> tokens) — Encode gives Hugging Face's
// ids for every text, whole and truncated.
func TestBPEParity(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(bpeDir, "reference.json"))
	require.NoError(t, err)
	var ref bpeReference
	require.NoError(t, json.Unmarshal(data, &ref))
	require.Len(t, ref.HF.Files, 4)
	for _, f := range ref.HF.Files {
		t.Run(f.Name, func(t *testing.T) {
			tok, err := Load(filepath.Join(bpeDir, f.Name+".json"))
			require.NoError(t, err)
			require.NotNil(t, tok.bpe)
			tokens := 0
			for i, text := range ref.Texts {
				got := tok.Encode(text, 0)
				tokens += len(got.IDs)
				if diff := cmp.Diff(f.IDs[i], got.IDs); diff != "" {
					t.Errorf("text %d %q: ids differ from tokenizers %s (-want +got):\n%s\npieces %q", i, text, ref.HF.Version, diff, tok.Tokens(text))
				}
				cut := tok.Encode(text, ref.Truncate)
				if diff := cmp.Diff(f.Truncated[i], cut.IDs); diff != "" {
					t.Errorf("text %d truncated at %d: (-want +got):\n%s", i, ref.Truncate, diff)
				}
				require.Equal(t, len(f.IDs[i]) > ref.Truncate, cut.Truncated, "text %d", i)
			}
			t.Logf("%d texts, %d ids equal to tokenizers %s", len(ref.Texts), tokens, ref.HF.Version)
		})
	}
}

func TestByteLevelTable(t *testing.T) {
	// GPT-2's table: printable bytes map to themselves, space to Ġ, newline
	// to Ċ, and 256 distinct runes in all.
	require.Equal(t, 'Ġ', byteLevelRunes[' '])
	require.Equal(t, 'Ċ', byteLevelRunes['\n'])
	require.Equal(t, 'a', byteLevelRunes['a'])
	seen := map[rune]bool{}
	for _, r := range byteLevelRunes {
		seen[r] = true
	}
	require.Len(t, seen, 256)
}

func TestSplitPatterns(t *testing.T) {
	split := func(m func(string, int) int, s string) []string {
		var out []string
		for i := 0; i < len(s); {
			j := m(s, i)
			out = append(out, s[i:j])
			i = j
		}
		return out
	}
	for _, tc := range []struct {
		name, pattern, text string
		want                []string
		reason              string
	}{
		{"gpt2-spaces", patternGPT2, "a  b   ", []string{"a", " ", " b", "   "}, "a space run gives its last space to the next word; at the end it stays whole"},
		{"gpt2-contraction", patternGPT2, "it's I'M", []string{"it", "'s", " I", "'", "M"}, "GPT-2's contractions are case-sensitive"},
		{"gpt2-numbers", patternGPT2, "x 12345", []string{"x", " 12345"}, "numbers stay whole"},
		{"qwen-digits", patternQwen, "x 12345", []string{"x", " ", "1", "2", "3", "4", "5"}, "Qwen splits every digit"},
		{"llama3-digits", patternLlama3, "12345", []string{"123", "45"}, "Llama 3 groups digits by three"},
		{"qwen-newlines", patternQwen, "a \n\n  b", []string{"a", " \n\n", " ", " b"}, "whitespace up to the last line break is one piece"},
		{"qwen-punct-word", patternQwen, "(foo) I'M", []string{"(foo", ")", " I", "'M"}, "one non-letter joins the word after it; contractions fold case"},
		{"qwen-punct-newline", patternQwen, "x;\n\ny", []string{"x", ";\n\n", "y"}, "punctuation takes the line breaks after it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, split(splitPatterns[tc.pattern], tc.text)); diff != "" {
				t.Errorf("%q (-want +got):\n%s\n%s", tc.text, diff, tc.reason)
			}
		})
	}
}
