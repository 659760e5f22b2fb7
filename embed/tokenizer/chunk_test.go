package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunkedNormalization checks that normalizing long texts in chunks
// gives the ids of normalizing them whole, on the parity texts joined into
// one long text and on a text with combining marks at every cut.
func TestChunkedNormalization(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "parity", "*.json"))
	require.NotEmpty(t, files)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var pf struct {
		Cases []struct{ Text string } `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(data, &pf))
	var all []string
	for _, c := range pf.Cases {
		all = append(all, c.Text)
	}
	texts := []string{
		strings.Join(all, "\n"),
		strings.Repeat("e\u0301 \u0301a\u0308\u0323 Café İ 中文 ", 500),
	}
	tok, err := Parse("tiny", []byte(`{"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
		"vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"e":3,"a":4,"cafe":5,"i":6,"中":7,"the":8,"##s":9,"def":10}},
		"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},
		"pre_tokenizer":{"type":"BertPreTokenizer"},
		"added_tokens":[{"id":1,"content":"[CLS]","special":true},{"id":2,"content":"[SEP]","special":true}],
		"post_processor":{"type":"BertProcessing","sep":["[SEP]",2],"cls":["[CLS]",1]}}`))
	require.NoError(t, err)
	defer func(n int) { chunkBytes = n }(chunkBytes)
	for i, text := range texts {
		chunkBytes = 1 << 30
		whole := tok.Encode(text, 0).IDs
		for _, n := range []int{1, 7, 64, 2048} {
			chunkBytes = n
			if got := tok.Encode(text, 0).IDs; !slices.Equal(whole, got) {
				t.Errorf("text %d, chunks of %d bytes: ids differ from normalizing whole", i, n)
			}
		}
	}
}
