package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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

// FuzzBPE checks the byte-level BPE tokenizers of testdata/bpe on any text:
// no panic, ids of the vocabulary, the token limit kept, and — byte-level
// BPE being lossless — the pieces decode to the text itself (after the
// space GPT-2's add_prefix_space puts in front). Texts with '<' are not
// decoded: they may hold the added tokens, matched whole.
func FuzzBPE(f *testing.F) {
	for _, s := range []string{"def f(x):\n\treturn x  # ok", "12345 I'M   ", "日本語 🚀\r\n", "\xff\xfe bad utf-8", ""} {
		f.Add(s)
	}
	type loaded struct {
		tok    *Tokenizer
		inv    map[int64]string
		prefix bool
	}
	var toks []loaded
	for _, name := range []string{"gpt2", "llama3", "qwen", "bytefallback"} {
		tok, err := Load(filepath.Join(bpeDir, name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		inv := map[int64]string{}
		for s, id := range tok.vocab {
			inv[int64(id)] = s
		}
		toks = append(toks, loaded{tok, inv, name == "gpt2"})
	}
	unByte := map[rune]byte{}
	for b, r := range byteLevelRunes {
		unByte[r] = byte(b)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i, l := range toks {
			for _, limit := range []int{0, 5} {
				e := l.tok.Encode(text, limit)
				if limit > 0 && len(e.IDs) > limit {
					t.Fatalf("tokenizer %d: limit %d, %d ids", i, limit, len(e.IDs))
				}
				for _, id := range e.IDs {
					if id < 0 || int(id) >= l.tok.VocabSize() {
						t.Fatalf("tokenizer %d: id %d outside the vocabulary", i, id)
					}
				}
			}
			if i > 1 || strings.Contains(text, "<") || !utf8.ValidString(text) {
				continue // qwen normalizes (NFC); bytefallback drops whitespace
			}
			var got []byte
			for _, piece := range l.tok.Tokens(text) {
				for _, r := range piece {
					got = append(got, unByte[r])
				}
			}
			want := text
			if l.prefix && text != "" && !strings.HasPrefix(text, " ") {
				want = " " + text
			}
			if string(got) != want {
				t.Fatalf("tokenizer %d: pieces decode to %q, want %q", i, got, want)
			}
		}
	})
}
