package tokenizer

import (
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>.

const fuzzTokenizerJSON = `{"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
	"vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"[PAD]":3,"e":4,"a":5,"def":6,"##s":7}},
	"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},
	"pre_tokenizer":{"type":"BertPreTokenizer"},
	"added_tokens":[{"id":1,"content":"[CLS]","special":true},{"id":2,"content":"[SEP]","special":true}],
	"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
	"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[1]},"[SEP]":{"id":"[SEP]","ids":[2]}}}}`

// FuzzParse checks that no tokenizer.json makes Parse panic, that every
// error names the file, and that an accepted tokenizer encodes text into
// ids of its own vocabulary, within the token limit, with a full mask.
func FuzzParse(f *testing.F) {
	f.Add([]byte(fuzzTokenizerJSON), "def es a\u0301 [SEP] x")
	f.Fuzz(func(t *testing.T, in []byte, text string) {
		tok, err := Parse("fuzz.json", in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, limit := range []int{0, 3, 16} {
			e := tok.Encode(text, limit)
			if limit > 0 && len(e.IDs) > limit && len(e.IDs) > tok.NumSpecial() {
				t.Errorf("limit %d: %d ids", limit, len(e.IDs))
			}
			if len(e.Mask) != len(e.IDs) || len(e.TypeIDs) != len(e.IDs) {
				t.Errorf("limit %d: %d ids, %d mask, %d type ids", limit, len(e.IDs), len(e.Mask), len(e.TypeIDs))
			}
		}
		tok.Tokens(text)
	})
}
