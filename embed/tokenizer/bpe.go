package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// bpe is a BPE model as tokenizer.json describes it: a vocabulary, merges
// in priority order, and the options of byte-level (GPT-2, RoBERTa, Qwen,
// Llama 3) and byte-fallback (Llama 2, Mistral) tokenizers.
type bpe struct {
	vocab        map[string]int32
	merges       map[uint64]bpeMerge // (left id, right id) → rank and result
	unk          int32               // -1: no unk token
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int32 // <0xXX> tokens for byte fallback; -1 when absent
}

type bpeMerge struct {
	rank int
	id   int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

type bpeJSON struct {
	Type                    string           `json:"type"`
	Dropout                 *float64         `json:"dropout"`
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string          `json:"end_of_word_suffix"`
	FuseUnk                 bool             `json:"fuse_unk"`
	ByteFallback            bool             `json:"byte_fallback"`
	IgnoreMerges            bool             `json:"ignore_merges"`
	Vocab                   map[string]int32 `json:"vocab"`
	Merges                  json.RawMessage  `json:"merges"`
}

func parseBPE(raw json.RawMessage) (*bpe, error) {
	var m bpeJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if len(m.Vocab) == 0 {
		return nil, fmt.Errorf("model vocab is empty")
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fmt.Errorf("BPE dropout %v: only deterministic BPE (dropout null) is supported", *m.Dropout)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" || m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return nil, fmt.Errorf("BPE continuing_subword_prefix and end_of_word_suffix are not supported")
	}
	b := &bpe{vocab: m.Vocab, unk: -1, fuseUnk: m.FuseUnk, byteFallback: m.ByteFallback, ignoreMerges: m.IgnoreMerges}
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("model unk_token %q is not in the vocabulary", *m.UnkToken)
		}
		b.unk = id
	}
	for i := range b.byteIDs {
		b.byteIDs[i] = -1
		if id, ok := m.Vocab[fmt.Sprintf("<0x%02X>", i)]; ok {
			b.byteIDs[i] = id
		}
	}
	// Merges are "left right" strings (older files) or [left, right] pairs.
	var pairs [][2]string
	var asStrings []string
	if err := json.Unmarshal(m.Merges, &asStrings); err == nil {
		for i, s := range asStrings {
			l, r, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merge %d %q: want \"left right\"", i+1, s)
			}
			pairs = append(pairs, [2]string{l, r})
		}
	} else if err := json.Unmarshal(m.Merges, &pairs); err != nil {
		return nil, fmt.Errorf("model merges: %w", err)
	}
	b.merges = make(map[uint64]bpeMerge, len(pairs))
	for rank, p := range pairs {
		l, okl := m.Vocab[p[0]]
		r, okr := m.Vocab[p[1]]
		id, ok := m.Vocab[p[0]+p[1]]
		if !okl || !okr || !ok {
			return nil, fmt.Errorf("merge %d (%q, %q): a token is not in the vocabulary", rank+1, p[0], p[1])
		}
		if _, dup := b.merges[pairKey(l, r)]; !dup {
			b.merges[pairKey(l, r)] = bpeMerge{rank: rank, id: id}
		}
	}
	return b, nil
}

// encode appends the ids of one pre-tokenized word: its characters (or, for
// a character outside the vocabulary, its bytes' <0xXX> tokens with byte
// fallback, else the unknown token), merged pair by pair, the lowest-ranked
// pair first and the leftmost among equals, as Hugging Face's BPE does.
func (b *bpe) encode(ids []int64, word string) []int64 {
	if word == "" {
		return ids
	}
	if b.ignoreMerges {
		if id, ok := b.vocab[word]; ok {
			return append(ids, int64(id))
		}
	}
	syms := make([]int32, 0, len(word))
	lastUnk := false
	for i := 0; i < len(word); {
		_, size := utf8.DecodeRuneInString(word[i:])
		ch := word[i : i+size]
		i += size
		if id, ok := b.vocab[ch]; ok {
			syms, lastUnk = append(syms, id), false
			continue
		}
		if b.byteFallback && b.hasBytes(ch) {
			for k := 0; k < len(ch); k++ {
				syms = append(syms, b.byteIDs[ch[k]])
			}
			lastUnk = false
			continue
		}
		if b.unk < 0 {
			continue // no unknown token: the character is dropped
		}
		if !(b.fuseUnk && lastUnk) {
			syms = append(syms, b.unk)
		}
		lastUnk = true
	}
	return b.merge(ids, syms)
}

// merge applies the merges to syms and appends the result to ids. Pairs
// wait in a heap ordered by rank, then position, so a word of n symbols
// takes O(n log n) (a long minified line or a run of spaces is one word); a
// popped pair that a merge next to it has changed is skipped.
func (b *bpe) merge(ids []int64, syms []int32) []int64 {
	n := len(syms)
	if n > 1 {
		next := make([]int, n) // -1 at the end; a merged-away symbol keeps its slot, dead
		prev := make([]int, n)
		for i := range n {
			next[i], prev[i] = i+1, i-1
		}
		next[n-1] = -1
		dead := make([]bool, n)
		h := pairHeap{}
		push := func(i int) {
			if i < 0 || next[i] < 0 {
				return
			}
			if m, ok := b.merges[pairKey(syms[i], syms[next[i]])]; ok {
				h.push(pairItem{rank: m.rank, pos: i, left: syms[i], right: syms[next[i]]})
			}
		}
		for i := 0; i+1 < n; i++ {
			push(i)
		}
		for len(h) > 0 {
			it := h.pop()
			j := next[it.pos]
			if dead[it.pos] || j < 0 || syms[it.pos] != it.left || syms[j] != it.right {
				continue // stale: a neighbour merged first
			}
			syms[it.pos] = b.merges[pairKey(it.left, it.right)].id
			dead[j] = true
			next[it.pos] = next[j]
			if next[j] >= 0 {
				prev[next[j]] = it.pos
			}
			push(prev[it.pos])
			push(it.pos)
		}
		for i := 0; i >= 0; i = next[i] {
			ids = append(ids, int64(syms[i]))
		}
		return ids
	}
	for _, s := range syms {
		ids = append(ids, int64(s))
	}
	return ids
}

type pairItem struct {
	rank, pos   int
	left, right int32
}

// pairHeap is a binary min-heap of pairs by (rank, pos).
type pairHeap []pairItem

func (h pairItem) less(o pairItem) bool {
	return h.rank < o.rank || h.rank == o.rank && h.pos < o.pos
}

func (h *pairHeap) push(it pairItem) {
	*h = append(*h, it)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *pairHeap) pop() pairItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[m]) {
			m = l
		}
		if r < len(s) && s[r].less(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

func (b *bpe) hasBytes(ch string) bool {
	for k := 0; k < len(ch); k++ {
		if b.byteIDs[ch[k]] < 0 {
			return false
		}
	}
	return true
}

// byteLevelRunes is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves, the others for the code points from U+0100 on, in order.
var byteLevelRunes = func() (t [256]rune) {
	n := rune(0)
	for b := range 256 {
		switch {
		case b >= '!' && b <= '~', b >= 0xA1 && b <= 0xAC, b >= 0xAE && b <= 0xFF:
			t[b] = rune(b)
		default:
			t[b] = 256 + n
			n++
		}
	}
	return t
}()

// byteLevel maps the UTF-8 bytes of s to their byte-level characters.
func byteLevel(s string) string {
	var sb strings.Builder
	sb.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		sb.WriteRune(byteLevelRunes[s[i]])
	}
	return sb.String()
}

// bytePre is the pre-tokenizer of a byte-level BPE: an optional split of
// the text into pieces by one of the regexes real tokenizers use, then the
// byte-level mapping of each piece.
type bytePre struct {
	split       func(s string, i int) int // end of the match at i; nil: the text is one piece
	prefixSpace bool                      // ByteLevel add_prefix_space
}

// each calls f with every byte-level piece of s until f returns false.
func (p *bytePre) each(s string, f func(string) bool) bool {
	if p.prefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	if p.split == nil {
		return s == "" || f(byteLevel(s))
	}
	for i := 0; i < len(s); {
		j := p.split(s, i)
		if j <= i { // cannot happen with the supported patterns; never loop
			_, size := utf8.DecodeRuneInString(s[i:])
			j = i + size
		}
		if !f(byteLevel(s[i:j])) {
			return false
		}
		i = j
	}
	return true
}

// The split patterns of real byte-level tokenizers, as tokenizer.json
// spells them. Go's regexp has no look-ahead (\s+(?!\S)), so each is
// matched by hand below; any other pattern is refused.
const (
	patternGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	patternQwen   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

var splitPatterns = map[string]func(string, int) int{
	patternGPT2:   matchGPT2,
	patternQwen:   func(s string, i int) int { return matchCL100k(s, i, 1) },
	patternLlama3: func(s string, i int) int { return matchCL100k(s, i, 3) },
}

type byteLevelJSON struct {
	Type           string            `json:"type"`
	AddPrefixSpace bool              `json:"add_prefix_space"`
	UseRegex       *bool             `json:"use_regex"`
	PreTokenizers  []json.RawMessage `json:"pretokenizers"`
	Pattern        struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior string `json:"behavior"`
	Invert   bool   `json:"invert"`
}

// parseBytePre reads the pre-tokenizers a byte-level BPE uses: ByteLevel
// (with its GPT-2 regex or none), or Sequence[Split(pattern, Isolated),
// ByteLevel(use_regex false)]. ok is false for other shapes.
func parseBytePre(raw json.RawMessage) (p *bytePre, ok bool, err error) {
	var j byteLevelJSON
	if len(raw) == 0 || json.Unmarshal(raw, &j) != nil {
		return nil, false, nil
	}
	switch j.Type {
	case "ByteLevel":
		p := &bytePre{prefixSpace: j.AddPrefixSpace}
		if j.UseRegex == nil || *j.UseRegex {
			p.split = matchGPT2
		}
		return p, true, nil
	case "Sequence":
		if len(j.PreTokenizers) != 2 {
			return nil, false, nil
		}
		var split, bl byteLevelJSON
		if json.Unmarshal(j.PreTokenizers[0], &split) != nil || json.Unmarshal(j.PreTokenizers[1], &bl) != nil ||
			split.Type != "Split" || bl.Type != "ByteLevel" {
			return nil, false, nil
		}
		if bl.UseRegex == nil || *bl.UseRegex {
			return nil, true, fmt.Errorf("pre_tokenizer: Split then ByteLevel with use_regex true is not supported")
		}
		if split.Pattern.Regex == nil || split.Behavior != "Isolated" || split.Invert {
			return nil, true, fmt.Errorf("pre_tokenizer Split: only a Regex pattern with behavior Isolated and invert false is supported")
		}
		m, known := splitPatterns[*split.Pattern.Regex]
		if !known {
			return nil, true, fmt.Errorf("pre_tokenizer Split: regex %q is not supported (only the GPT-2, Qwen2 and Llama 3 patterns)", *split.Pattern.Regex)
		}
		return &bytePre{split: m, prefixSpace: bl.AddPrefixSpace}, true, nil
	}
	return nil, false, nil
}

// Character classes of the patterns: \p{L}, \p{N}, \s (Unicode White_Space,
// as unicode.IsSpace), and the rest.
func isL(r rune) bool     { return unicode.IsLetter(r) }
func isN(r rune) bool     { return unicode.IsNumber(r) }
func isS(r rune) bool     { return unicode.IsSpace(r) }
func isOther(r rune) bool { return !isS(r) && !isL(r) && !isN(r) }

func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return utf8.RuneError, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// run returns the end of the run of characters in class from i.
func run(s string, i int, class func(rune) bool) int {
	for i < len(s) {
		r, size := runeAt(s, i)
		if !class(r) {
			break
		}
		i += size
	}
	return i
}

var contractions = []string{"s", "t", "re", "ve", "m", "ll", "d"}

// contraction returns the end of 's, 't, 're, 've, 'm, 'll or 'd at i (any
// ASCII case when fold), or -1.
func contraction(s string, i int, fold bool) int {
	if s[i] != '\'' {
		return -1
	}
	for _, c := range contractions {
		if e := i + 1 + len(c); e <= len(s) && (s[i+1:e] == c || fold && strings.EqualFold(s[i+1:e], c)) {
			return e
		}
	}
	return -1
}

// spaceRun matches \s+(?!\S)|\s+ at i (s[i] is whitespace): the whole run
// when it ends the text, else the run but its last character, which then
// goes with the word after it — unless the run is that one character.
func spaceRun(s string, i int) int {
	e := run(s, i, isS)
	if e == len(s) {
		return e
	}
	_, size := utf8.DecodeLastRuneInString(s[:e])
	if e-size > i {
		return e - size
	}
	return e
}

// matchGPT2 is patternGPT2 at i.
func matchGPT2(s string, i int) int {
	if e := contraction(s, i, false); e >= 0 {
		return e
	}
	j := i
	if s[i] == ' ' {
		j++
	}
	if r, _ := runeAt(s, j); j < len(s) {
		switch {
		case isL(r):
			return run(s, j, isL)
		case isN(r):
			return run(s, j, isN)
		case isOther(r):
			return run(s, j, isOther)
		}
	}
	if r, size := runeAt(s, i); !isS(r) {
		return i + size
	}
	return spaceRun(s, i)
}

// matchCL100k is patternQwen (digits 1) or patternLlama3 (digits 3) at i.
func matchCL100k(s string, i, digits int) int {
	if e := contraction(s, i, true); e >= 0 {
		return e
	}
	r0, size0 := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isL(r0) {
		return run(s, i, isL)
	}
	if r0 != '\r' && r0 != '\n' && !isN(r0) {
		if r, _ := runeAt(s, i+size0); i+size0 < len(s) && isL(r) {
			return run(s, i+size0, isL)
		}
	}
	// \p{N}{1,digits}
	if isN(r0) {
		e := i
		for n := 0; n < digits && e < len(s); n++ {
			r, size := runeAt(s, e)
			if !isN(r) {
				break
			}
			e += size
		}
		return e
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	j := i
	if s[i] == ' ' {
		j++
	}
	if r, _ := runeAt(s, j); j < len(s) && isOther(r) {
		e := run(s, j, isOther)
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	}
	if !isS(r0) {
		return i + size0
	}
	// \s*[\r\n]+: the whitespace run up to its last line break, if any.
	e := run(s, i, isS)
	if k := strings.LastIndexAny(s[i:e], "\r\n"); k >= 0 {
		return i + k + 1
	}
	return spaceRun(s, i)
}
