// Package tokenizer reads a Hugging Face tokenizer.json of the BERT family
// and turns text into the token ids the model was trained on, reproducing
// the Hugging Face tokenizers library id for id.
//
// The pipeline, as Hugging Face runs it:
//
//  1. Added tokens: literal occurrences of the file's added tokens (the
//     special tokens "[CLS]", "[SEP]", … here) are cut out of the raw text
//     first and kept whole, so a literal "[SEP]" is one token.
//  2. Normalizer (BertNormalizer): drop control characters and map
//     whitespace to a space (clean_text), put spaces around CJK ideographs
//     (handle_chinese_chars), NFD and drop non-spacing marks (strip_accents;
//     when null it follows lowercase), lowercase.
//  3. Pre-tokenizer (BertPreTokenizer): split on whitespace and isolate
//     every punctuation character.
//  4. Model (WordPiece): greedy longest-match-first against the vocabulary,
//     continuation pieces carrying "##"; a word with no split, or longer
//     than max_input_chars_per_word characters, becomes the unknown token.
//  5. Post-processor (TemplateProcessing, BertProcessing or
//     RobertaProcessing, as in MPNet's <s> … </s>): [CLS] … [SEP], after
//     truncating the pieces so the whole fits in maxTokens.
//
// SentencePiece-style files (Model2Vec static models) run the same
// pipeline with other parts: the Precompiled normalizer, the WhitespaceSplit
// and Metaspace pre-tokenizers and the Unigram model (Viterbi over the
// pieces' scores); see unigram.go.
//
// Byte-level BPE files (GPT-2, RoBERTa, Qwen, Llama 3, ModernBERT) run it
// with a NFC or no normalizer; the ByteLevel pre-tokenizer (GPT-2's regex
// split, add_prefix_space, then each byte as one of 256 printable
// characters) or Split with the Qwen2 or Llama 3 regex before it, matched by
// hand since Go's regexp has no look-ahead; the BPE model (merges lowest
// rank first, byte_fallback to <0xXX> tokens, unk and fuse_unk,
// ignore_merges); and the ByteLevel post-processor or a Sequence of it and a
// template. See bpe.go.
//
// Files of another kind (BPE dropout, another split regex, …) are refused
// with an error naming the file and the part it cannot run.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Tokenizer encodes text for one model. It is safe for concurrent use.
type Tokenizer struct {
	path string

	norm []normalizer // applied in order

	vocab           map[string]int32 // whole-word pieces
	cont            map[string]int32 // continuation pieces, prefix removed
	contPrefix      string
	unkID           int32
	maxWordChars    int
	added           []addedToken // sorted by content length, longest first
	normalizedAdded bool         // some added token is matched on normalized text
	addedFirst      [256]bool    // first bytes of raw-matched added tokens
	prefix, suffx   []special    // from the post-processor template
	padID           int64

	uni *unigram // the Unigram model, when the file has one instead of WordPiece
	bpe *bpe     // the BPE model, when the file has one
	// bytePre is a byte-level BPE's pre-tokenizer (ByteLevel, or Split then
	// ByteLevel); nil for the other pre-tokenizers.
	bytePre *bytePre
	pre     int // pre-tokenizer kind: preBert or preMetaspace
}

type special struct {
	id     int64
	typeID int64
}

// Encoding is the model input for one text.
type Encoding struct {
	IDs     []int64 // token ids, special tokens included
	TypeIDs []int64 // token type (segment) ids, all 0 for a single text
	Mask    []int64 // attention mask, all 1 (no padding)
	// Truncated reports that the text had more tokens than fit in maxTokens.
	Truncated bool
}

// Load reads a tokenizer.json.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer: %w", err)
	}
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.path = path
	return t, nil
}

// Parse builds a Tokenizer from the bytes of a tokenizer.json; name is used
// in error messages.
func Parse(name string, data []byte) (*Tokenizer, error) {
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.path = name
	return t, nil
}

type fileJSON struct {
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Padding       *struct {
		PadID int64 `json:"pad_id"`
	} `json:"padding"`
}

type addedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string           `json:"type"`
	UnkToken                string           `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
	Vocab                   json.RawMessage  `json:"vocab"`
	Merges                  *json.RawMessage `json:"merges"`
}

func parse(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	t := &Tokenizer{}
	if err := t.parseModel(f.Model); err != nil {
		return nil, err
	}
	var err error
	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.bpe != nil {
		if t.bytePre, _, err = parseBytePre(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if t.bytePre == nil {
		if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if err := t.parseAdded(f.AddedTokens); err != nil {
		return nil, err
	}
	if err := t.parsePostProcessor(f.PostProcessor); err != nil {
		return nil, err
	}
	t.padID = 0
	if f.Padding != nil {
		t.padID = f.Padding.PadID
	} else if id, ok := t.TokenID("[PAD]"); ok {
		t.padID = id
	}
	return t, nil
}

func (t *Tokenizer) parseModel(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("no model")
	}
	var m modelJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	typ := m.Type
	if typ == "" { // old files: infer the kind from its fields
		switch {
		case m.Merges != nil:
			typ = "BPE"
		case m.ContinuingSubwordPrefix != nil:
			typ = "WordPiece"
		}
	}
	if typ == "Unigram" {
		u, err := parseUnigram(raw)
		if err != nil {
			return err
		}
		t.uni, t.vocab, t.unkID = u, u.ids, u.unkID
		return nil
	}
	if typ == "BPE" {
		b, err := parseBPE(raw)
		if err != nil {
			return err
		}
		t.bpe, t.vocab, t.unkID = b, b.vocab, b.unk
		return nil
	}
	if typ != "WordPiece" {
		return fmt.Errorf("model type %q is not supported (only WordPiece, Unigram and BPE)", typ)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return fmt.Errorf("model vocab: %w", err)
	}
	if len(vocab) == 0 {
		return fmt.Errorf("model vocab is empty")
	}
	t.contPrefix = "##"
	if m.ContinuingSubwordPrefix != nil {
		t.contPrefix = *m.ContinuingSubwordPrefix
	}
	t.maxWordChars = m.MaxInputCharsPerWord
	if t.maxWordChars <= 0 {
		t.maxWordChars = 100
	}
	unk, ok := vocab[m.UnkToken]
	if !ok {
		return fmt.Errorf("model unk_token %q is not in the vocabulary", m.UnkToken)
	}
	t.unkID = unk
	t.vocab = vocab
	if t.contPrefix == "" {
		t.cont = vocab // continuation pieces are plain vocabulary entries
		return nil
	}
	t.cont = make(map[string]int32)
	for tok, id := range vocab {
		if strings.HasPrefix(tok, t.contPrefix) {
			t.cont[tok[len(t.contPrefix):]] = id
		}
	}
	return nil
}

func (t *Tokenizer) parseAdded(toks []addedToken) error {
	for _, a := range toks {
		if a.Content == "" {
			return fmt.Errorf("added token %d has no content", a.ID)
		}
		if a.Normalized {
			t.normalizedAdded = true
		} else {
			t.addedFirst[a.Content[0]] = true
		}
		t.added = append(t.added, a)
	}
	// Leftmost-longest: at a given position the longest token wins.
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].Content) > len(t.added[j].Content) })
	return nil
}

type templateJSON struct {
	Type   string          `json:"type"`
	Single []templatePiece `json:"single"`
	// SpecialTokens maps a template id to its token ids.
	SpecialTokens map[string]struct {
		IDs []int64 `json:"ids"`
	} `json:"special_tokens"`
	// Sequence
	Processors []json.RawMessage `json:"processors"`
	// BertProcessing
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
}

type templatePiece struct {
	SpecialToken *struct {
		ID     string `json:"id"`
		TypeID int64  `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int64  `json:"type_id"`
	} `json:"Sequence"`
}

func (t *Tokenizer) parsePostProcessor(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil // no special tokens added
	}
	var p templateJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("post_processor: %w", err)
	}
	switch p.Type {
	case "ByteLevel":
		// Byte-level offsets only: no ids added.
	case "Sequence":
		for i, sub := range p.Processors {
			if err := t.parsePostProcessor(sub); err != nil {
				return fmt.Errorf("post_processor %d of the sequence: %w", i+1, err)
			}
		}
	case "TemplateProcessing":
		seen := false
		for _, piece := range p.Single {
			switch {
			case piece.Sequence != nil:
				if seen {
					return fmt.Errorf("post_processor: single template has two sequences")
				}
				seen = true
			case piece.SpecialToken != nil:
				st, ok := p.SpecialTokens[piece.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("post_processor: special token %q has no ids", piece.SpecialToken.ID)
				}
				for _, id := range st.IDs {
					s := special{id: id, typeID: piece.SpecialToken.TypeID}
					if seen {
						t.suffx = append(t.suffx, s)
					} else {
						t.prefix = append(t.prefix, s)
					}
				}
			default:
				return fmt.Errorf("post_processor: template piece is neither SpecialToken nor Sequence")
			}
		}
		if !seen {
			return fmt.Errorf("post_processor: single template has no sequence")
		}
	case "BertProcessing", "RobertaProcessing":
		// For one sequence both are cls … sep (RobertaProcessing's
		// trim_offsets and add_prefix_space change offsets, not ids).
		cls, err := tokenPair(p.Cls)
		if err != nil {
			return fmt.Errorf("post_processor cls: %w", err)
		}
		sep, err := tokenPair(p.Sep)
		if err != nil {
			return fmt.Errorf("post_processor sep: %w", err)
		}
		t.prefix = []special{{id: cls}}
		t.suffx = []special{{id: sep}}
	default:
		return fmt.Errorf("post_processor type %q is not supported (only TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel and a Sequence of them)", p.Type)
	}
	return nil
}

// tokenPair reads BertProcessing's ["[SEP]", 102].
func tokenPair(raw []json.RawMessage) (int64, error) {
	if len(raw) != 2 {
		return 0, fmt.Errorf("want [token, id]")
	}
	var id int64
	if err := json.Unmarshal(raw[1], &id); err != nil {
		return 0, fmt.Errorf("want [token, id]: %w", err)
	}
	return id, nil
}

// TokenID returns the id of a vocabulary or added token.
func (t *Tokenizer) TokenID(tok string) (int64, bool) {
	for _, a := range t.added {
		if a.Content == tok {
			return int64(a.ID), true
		}
	}
	id, ok := t.vocab[tok]
	return int64(id), ok
}

// PadID is the id to pad batches with.
func (t *Tokenizer) PadID() int64 { return t.padID }

// NumSpecial is the number of special tokens Encode adds around a text.
func (t *Tokenizer) NumSpecial() int { return len(t.prefix) + len(t.suffx) }

// Path is the file the tokenizer was loaded from.
func (t *Tokenizer) Path() string { return t.path }

// VocabSize is one more than the largest token id the tokenizer can emit
// (vocabulary and added tokens).
func (t *Tokenizer) VocabSize() int {
	n := 0
	if t.uni != nil {
		n = len(t.uni.scores)
	}
	for _, id := range t.vocab {
		n = max(n, int(id)+1)
	}
	for _, a := range t.added {
		n = max(n, int(a.ID)+1)
	}
	for _, s := range append(append([]special(nil), t.prefix...), t.suffx...) {
		n = max(n, int(s.id)+1)
	}
	return n
}
