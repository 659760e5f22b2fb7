package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Encode tokenizes text and adds the special tokens. When maxTokens > 0
// the result has at most maxTokens ids, special tokens included: the text's
// pieces are cut at the end (Hugging Face's right truncation) and
// Truncated is set. maxTokens <= 0 means no limit.
func (t *Tokenizer) Encode(text string, maxTokens int) Encoding {
	limit := -1
	if maxTokens > 0 {
		limit = max(maxTokens-t.NumSpecial(), 0)
	}
	capacity := len(text)/4 + 8
	if limit >= 0 {
		capacity = min(capacity, limit+2)
	}
	ids := make([]int64, 0, capacity)
	ids = t.appendPieces(ids, text, limit)
	truncated := false
	if limit >= 0 && len(ids) > limit {
		ids, truncated = ids[:limit], true
	}
	n := len(t.prefix) + len(ids) + len(t.suffx)
	e := Encoding{
		IDs:       make([]int64, 0, n),
		TypeIDs:   make([]int64, 0, n),
		Mask:      make([]int64, n),
		Truncated: truncated,
	}
	for _, s := range t.prefix {
		e.IDs = append(e.IDs, s.id)
		e.TypeIDs = append(e.TypeIDs, s.typeID)
	}
	e.IDs = append(e.IDs, ids...)
	for range ids {
		e.TypeIDs = append(e.TypeIDs, 0)
	}
	for _, s := range t.suffx {
		e.IDs = append(e.IDs, s.id)
		e.TypeIDs = append(e.TypeIDs, s.typeID)
	}
	for i := range e.Mask {
		e.Mask[i] = 1
	}
	return e
}

// Tokens returns the vocabulary pieces of text, without special tokens
// added by the template, for inspection.
func (t *Tokenizer) Tokens(text string) []string {
	inv := make(map[int64]string, len(t.vocab))
	for tok, id := range t.vocab {
		inv[int64(id)] = tok
	}
	for _, a := range t.added {
		inv[int64(a.ID)] = a.Content
	}
	ids := t.appendPieces(nil, text, -1)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = inv[id]
	}
	return out
}

// chunkBytes is about how much text is normalized at a time, so that a
// long text cut at maxTokens is not normalized to its end.
var chunkBytes = 2048

// appendPieces appends the ids of text (no template) to ids. With limit >=
// 0 it stops once it has more than limit ids: the caller only needs to know
// that the text does not fit.
func (t *Tokenizer) appendPieces(ids []int64, text string, limit int) []int64 {
	full := func() bool { return limit >= 0 && len(ids) > limit }
	words := func(seg string) bool {
		// Added tokens matched on normalized text (none in BERT files).
		return t.splitAdded(seg, true, func(seg string, id int32, isToken bool) bool {
			if isToken {
				ids = append(ids, int64(id))
				return !full()
			}
			if t.bytePre != nil {
				t.bytePre.each(seg, func(w string) bool {
					ids = t.bpe.encode(ids, w)
					return !full()
				})
				return !full()
			}
			if t.pre == preMetaspace {
				forEachMetaspaceWord(seg, func(w string) bool {
					if t.bpe != nil {
						ids = t.bpe.encode(ids, w)
					} else {
						ids = t.uni.encode(ids, w)
					}
					return !full()
				})
				return !full()
			}
			forEachWord(seg, func(w string) bool {
				ids = t.wordPiece(ids, w)
				return !full()
			})
			return !full()
		})
	}
	t.splitAdded(text, false, func(seg string, id int32, isToken bool) bool {
		if isToken {
			ids = append(ids, int64(id))
			return !full()
		}
		for len(seg) > 0 {
			chunk := seg
			// Byte-level pre-tokenizers see whitespace runs and line breaks
			// as tokens (and may add a space in front): a BPE text is
			// normalized whole.
			if !t.normalizedAdded && t.bpe == nil && len(seg) > chunkBytes {
				// Cut after an ASCII whitespace byte: a word boundary and a
				// normalization boundary (every normalizer here is local to a
				// character or a combining sequence, and a space starts one).
				if cut := t.chunkCut(seg[chunkBytes:]); cut >= 0 {
					chunk = seg[:chunkBytes+cut+1]
				}
			}
			seg = seg[len(chunk):]
			for _, n := range t.norm {
				chunk = n(chunk)
			}
			if !words(chunk) {
				return false
			}
		}
		return !full()
	})
	return ids
}

// chunkCut returns the index in s of the whitespace byte to cut after, or
// -1. The Precompiled normalizer works per grapheme cluster, and a space
// starts one ("a \u0301" keeps the mark with the space), so for it the cut
// must also be followed by a printable ASCII byte.
func (t *Tokenizer) chunkCut(s string) int {
	if t.uni == nil {
		return strings.IndexAny(s, " \n\t\r")
	}
	for i := 0; i+1 < len(s); i++ {
		if c := s[i]; (c == ' ' || c == '\n' || c == '\t' || c == '\r') && s[i+1] > ' ' && s[i+1] < 0x7f {
			return i
		}
	}
	return -1
}

// singleWord reports whether the match s[i:end] of a single_word added
// token stands alone: no word character (letter, digit, '_') touches it.
func singleWord(s string, i, end int) bool {
	if r, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && isWordChar(r) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && isWordChar(r) {
		return false
	}
	return true
}

func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
}

// splitAdded cuts s at literal occurrences of the added tokens whose
// Normalized flag equals normalized, leftmost and then longest first, and
// calls f with each text segment or token in order until f returns false.
func (t *Tokenizer) splitAdded(s string, normalized bool, f func(seg string, id int32, isToken bool) bool) bool {
	start := 0 // start of the pending text segment
	for i := 0; i < len(s); {
		if !normalized && !t.addedFirst[s[i]] {
			i++
			continue
		}
		var hit *addedToken
		for k := range t.added {
			a := &t.added[k]
			if a.Normalized == normalized && strings.HasPrefix(s[i:], a.Content) &&
				(!a.SingleWord || singleWord(s, i, i+len(a.Content))) {
				hit = a
				break // t.added is sorted longest first
			}
		}
		if hit == nil {
			i++
			continue
		}
		end := i + len(hit.Content)
		segEnd := i
		if hit.LStrip {
			segEnd = len(strings.TrimRightFunc(s[start:i], isWhitespace)) + start
		}
		if hit.RStrip {
			end = len(s) - len(strings.TrimLeftFunc(s[end:], isWhitespace))
		}
		if segEnd > start && !f(s[start:segEnd], 0, false) {
			return false
		}
		if !f("", hit.ID, true) {
			return false
		}
		i, start = end, end
	}
	if start < len(s) {
		return f(s[start:], 0, false)
	}
	return true
}

// forEachWord is BertPreTokenizer: split on whitespace (dropped) and make
// every punctuation character a word of its own.
func forEachWord(s string, f func(string) bool) {
	start := -1 // start of the current word, -1 when none
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch preClass(r) {
		case preSpace:
			if start >= 0 && !f(s[start:i]) {
				return
			}
			start = -1
		case prePunct:
			if start >= 0 && !f(s[start:i]) {
				return
			}
			start = -1
			if !f(s[i : i+size]) {
				return
			}
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	if start >= 0 {
		f(s[start:])
	}
}

// wordPiece appends the pieces of one word: greedy longest match first,
// continuation pieces looked up without their prefix. A word longer than
// maxWordChars characters, or with a part no piece matches, is unknown.
func (t *Tokenizer) wordPiece(ids []int64, w string) []int64 {
	if utf8.RuneCountInString(w) > t.maxWordChars {
		return append(ids, int64(t.unkID))
	}
	n := len(ids)
	for start := 0; start < len(w); {
		end := len(w)
		found := false
		var id int32
		for end > start {
			var ok bool
			if start == 0 {
				id, ok = t.vocab[w[start:end]]
			} else {
				id, ok = t.cont[w[start:end]]
			}
			if ok {
				found = true
				break
			}
			// Step back one character.
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if !found {
			return append(ids[:n], int64(t.unkID))
		}
		ids = append(ids, int64(id))
		start = end
	}
	return ids
}
