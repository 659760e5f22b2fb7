package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// This file holds the SentencePiece side of tokenizer.json, as Hugging Face
// runs it for Unigram models (Model2Vec and T5-style files):
//
//   - the Precompiled normalizer: SentencePiece's character map, a
//     double-array trie over UTF-8 bytes with the replacement strings after
//     it, applied per grapheme cluster;
//   - the WhitespaceSplit and Metaspace pre-tokenizers;
//   - the Unigram model: the best segmentation of each word under the
//     pieces' log-probabilities (Viterbi), with unknown characters scored
//     10 below the lowest piece and consecutive unknowns fused into one.

// kUnkPenalty is what Hugging Face's Unigram subtracts from the lowest
// piece score to score an unknown character.
const kUnkPenalty = 10.0

// unigram is the Unigram model of a tokenizer.json.
type unigram struct {
	ids    map[string]int32 // piece → id (the last of duplicates, as in Hugging Face)
	scores []float64        // by id
	trie   pieceTrie
	unkID  int32
	unk    float64 // score of an unknown character
}

type unigramJSON struct {
	Type         string  `json:"type"`
	UnkID        *int    `json:"unk_id"`
	Vocab        [][]any `json:"vocab"`
	ByteFallback bool    `json:"byte_fallback"`
}

func parseUnigram(raw json.RawMessage) (*unigram, error) {
	var m unigramJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.ByteFallback {
		return nil, fmt.Errorf("model: Unigram byte_fallback is not supported")
	}
	if len(m.Vocab) == 0 {
		return nil, fmt.Errorf("model vocab is empty")
	}
	if m.UnkID == nil || *m.UnkID < 0 || *m.UnkID >= len(m.Vocab) {
		return nil, fmt.Errorf("model: Unigram unk_id missing or outside the vocabulary of %d", len(m.Vocab))
	}
	u := &unigram{ids: make(map[string]int32, len(m.Vocab)), scores: make([]float64, len(m.Vocab)), unkID: int32(*m.UnkID)}
	minScore := math.Inf(1)
	pieces := make([]string, len(m.Vocab))
	for i, e := range m.Vocab {
		var piece string
		var score float64
		ok := len(e) == 2
		if ok {
			piece, ok = e[0].(string)
		}
		if ok {
			score, ok = e[1].(float64)
		}
		if !ok {
			return nil, fmt.Errorf("model vocab entry %d: want [piece, score]", i)
		}
		u.ids[piece] = int32(i)
		u.scores[i] = score
		minScore = min(minScore, score)
		pieces[i] = piece
	}
	u.trie = newPieceTrie(pieces)
	u.unk = minScore - kUnkPenalty
	return u, nil
}

// pieceTrie is a byte trie of the vocabulary in flat arrays, built once from
// the sorted pieces: node 0 is the root; the edges out of node n are
// label[first[n]:first[n+1]] (ascending bytes), leading to nodes
// child[first[n]:first[n+1]]; leaf[n] says whether node n ends a piece. A
// vocabulary of 500k pieces makes a few million nodes, which a map keyed by
// (node, byte) spread over memory: building it took seconds (cache misses).
type pieceTrie struct {
	first []int32
	label []byte
	child []int32
	leaf  []bool
}

// newPieceTrie builds the trie of pieces (duplicates allowed), numbering
// the nodes breadth first so that the children of a node are consecutive.
func newPieceTrie(pieces []string) pieceTrie {
	ps := slices.Clone(pieces)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	// A node is the pieces ps[lo:hi] that share its prefix of length depth.
	type span struct{ lo, hi, depth int32 }
	nodes := 1 // at most one node per byte of the pieces, and the root
	for _, p := range ps {
		nodes += len(p)
	}
	queue := make([]span, 1, nodes)
	queue[0] = span{0, int32(len(ps)), 0}
	t := pieceTrie{first: make([]int32, 0, nodes+1), label: make([]byte, 0, nodes), child: make([]int32, 0, nodes), leaf: make([]bool, 0, nodes)}
	for qi := 0; qi < len(queue); qi++ {
		sp := queue[qi]
		t.first = append(t.first, int32(len(t.label)))
		lo := sp.lo
		leaf := lo < sp.hi && len(ps[lo]) == int(sp.depth) // the prefix itself sorts first
		t.leaf = append(t.leaf, leaf)
		if leaf {
			lo++
		}
		for i := lo; i < sp.hi; {
			b := ps[i][sp.depth]
			j := i + 1
			for j < sp.hi && ps[j][sp.depth] == b {
				j++
			}
			t.label = append(t.label, b)
			t.child = append(t.child, int32(len(queue)))
			queue = append(queue, span{i, j, sp.depth + 1})
			i = j
		}
	}
	t.first = append(t.first, int32(len(t.label)))
	return t
}

// step returns the child of node n along byte b.
func (t *pieceTrie) step(n int32, b byte) (int32, bool) {
	lo, hi := t.first[n], t.first[n+1]
	end := hi
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if t.label[m] < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < end && t.label[lo] == b {
		return t.child[lo], true
	}
	return 0, false
}

// prefixes calls f with the length of every piece that is a prefix of s,
// shortest first.
func (t *pieceTrie) prefixes(s string, f func(n int)) {
	n := int32(0)
	for i := 0; i < len(s); i++ {
		c, ok := t.step(n, s[i])
		if !ok {
			return
		}
		n = c
		if t.leaf[n] {
			f(i + 1)
		}
	}
}

// encode appends the ids of the best segmentation of one pre-tokenized
// word, Hugging Face's Unigram::encode_optimized step for step: ties keep
// the path found first, consecutive unknown characters become one token,
// and every piece is looked up by its string.
func (u *unigram) encode(ids []int64, w string) []int64 {
	type node struct {
		score  float64
		start  int // -1: not reached
		unkned bool
	}
	best := make([]node, len(w)+1)
	for i := range best {
		best[i].start = -1
	}
	for start := 0; start < len(w); {
		here := best[start].score
		_, mblen := utf8.DecodeRuneInString(w[start:])
		single := false
		u.trie.prefixes(w[start:], func(n int) {
			id := u.ids[w[start:start+n]]
			cand := here + u.scores[id]
			if t := &best[start+n]; t.start < 0 || cand > t.score {
				*t = node{score: cand, start: start}
			}
			if n == mblen {
				single = true
			}
		})
		if !single {
			cand := here + u.unk
			if t := &best[start+mblen]; t.start < 0 || cand > t.score {
				*t = node{score: cand, start: start, unkned: true}
			}
		}
		start += mblen
	}
	// Walk back, then emit in order.
	var pieces []string
	fused := "" // unknown characters pending, in text order
	for end := len(w); end > 0; {
		n := best[end]
		if n.unkned {
			fused = w[n.start:end] + fused
		} else {
			if fused != "" {
				pieces = append(pieces, fused)
				fused = ""
			}
			pieces = append(pieces, w[n.start:end])
		}
		end = n.start
	}
	if fused != "" {
		pieces = append(pieces, fused)
	}
	for i := len(pieces) - 1; i >= 0; i-- {
		id, ok := u.ids[pieces[i]]
		if !ok {
			id = u.unkID
		}
		ids = append(ids, int64(id))
	}
	return ids
}

// precompiled is SentencePiece's precompiled character map.
type precompiled struct {
	array      []uint32 // double-array trie units
	normalized string   // NUL-terminated replacements the trie's values index
}

func parsePrecompiled(b64 string) (*precompiled, error) {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("normalizer Precompiled: precompiled_charsmap: %w", err)
	}
	if len(data) < 4 {
		return nil, fmt.Errorf("normalizer Precompiled: precompiled_charsmap of %d bytes is too short", len(data))
	}
	size := int(binary.LittleEndian.Uint32(data))
	if size%4 != 0 || 4+size > len(data) {
		return nil, fmt.Errorf("normalizer Precompiled: trie of %d bytes does not fit in the %d-byte charsmap", size, len(data))
	}
	p := &precompiled{array: make([]uint32, size/4), normalized: string(data[4+size:])}
	for i := range p.array {
		p.array[i] = binary.LittleEndian.Uint32(data[4+4*i:])
	}
	if !utf8.ValidString(p.normalized) {
		return nil, fmt.Errorf("normalizer Precompiled: replacement strings are not UTF-8")
	}
	return p, nil
}

// transform returns the replacement of the shortest prefix of s the map
// knows (as spm_precompiled does), or false.
func (p *precompiled) transform(s string) (string, bool) {
	a := p.array
	if len(a) == 0 {
		return "", false
	}
	pos := uint32(0)
	unit := a[pos]
	pos ^= unitOffset(unit)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(a) {
			return "", false
		}
		unit = a[pos]
		if unit&(1<<31|0xFF) != uint32(c) { // label
			return "", false
		}
		pos ^= unitOffset(unit)
		if (unit>>8)&1 == 1 { // has a leaf: its value is the first result
			if int(pos) >= len(a) {
				return "", false
			}
			v := int(a[pos] & (1<<31 - 1))
			if v > len(p.normalized) {
				return "", false
			}
			end := strings.IndexByte(p.normalized[v:], 0)
			if end < 0 {
				end = len(p.normalized) - v
			}
			return p.normalized[v : v+end], true
		}
	}
	return "", false
}

func unitOffset(u uint32) uint32 { return (u >> 10) << ((u & (1 << 9)) >> 6) }

// normalize is Hugging Face's Precompiled normalizer: a grapheme cluster of
// fewer than 6 bytes is replaced whole when the map knows a prefix of it,
// else each of its characters is replaced on its own or kept.
func (p *precompiled) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	state := -1
	for len(s) > 0 {
		var g string
		if c := s[0]; c < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf && c != '\r') {
			// ASCII followed by ASCII: a cluster of one byte (CR LF is the
			// one ASCII pair that joins).
			g, s, state = s[:1], s[1:], -1
		} else {
			g, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		}
		if len(g) < 6 {
			if r, ok := p.transform(g); ok {
				b.WriteString(r)
				continue
			}
		}
		for i, c := range g {
			part := g[i : i+utf8.RuneLen(c)]
			if c == utf8.RuneError {
				_, n := utf8.DecodeRuneInString(g[i:])
				part = g[i : i+n]
			}
			if r, ok := p.transform(part); ok {
				b.WriteString(r)
			} else {
				b.WriteString(part)
			}
		}
	}
	return b.String()
}

// Pre-tokenizer kinds.
const (
	preBert      = iota // BertPreTokenizer: whitespace and punctuation
	preMetaspace        // WhitespaceSplit then Metaspace(▁, prepend always, split)
)

type preTokenizerJSON struct {
	Type           string            `json:"type"`
	PreTokenizers  []json.RawMessage `json:"pretokenizers"`
	Replacement    string            `json:"replacement"`
	PrependScheme  string            `json:"prepend_scheme"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	Split          *bool             `json:"split"`
}

// parsePreTokenizer returns the pre-tokenizer kind of raw: BertPreTokenizer
// (alone or in a one-element Sequence), or the SentencePiece pair
// Sequence[WhitespaceSplit, Metaspace] (Metaspace with prepend "always"
// and split on).
func parsePreTokenizer(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("no pre_tokenizer (only BertPreTokenizer and WhitespaceSplit+Metaspace are supported)")
	}
	var p preTokenizerJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return 0, fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch {
	case p.Type == "BertPreTokenizer":
		return preBert, nil
	case p.Type == "Sequence" && len(p.PreTokenizers) == 1:
		return parsePreTokenizer(p.PreTokenizers[0])
	case p.Type == "Sequence" && len(p.PreTokenizers) == 2:
		var a, m preTokenizerJSON
		if json.Unmarshal(p.PreTokenizers[0], &a) != nil || json.Unmarshal(p.PreTokenizers[1], &m) != nil ||
			a.Type != "WhitespaceSplit" || m.Type != "Metaspace" {
			break
		}
		if err := checkMetaspace(m); err != nil {
			return 0, err
		}
		return preMetaspace, nil
	}
	return 0, fmt.Errorf("pre_tokenizer type %q is not supported (only BertPreTokenizer and Sequence[WhitespaceSplit, Metaspace])", p.Type)
}

func checkMetaspace(m preTokenizerJSON) error {
	always := m.PrependScheme == "always" || m.PrependScheme == "" && m.AddPrefixSpace != nil && *m.AddPrefixSpace
	if m.Replacement != "▁" || !always || m.Split != nil && !*m.Split {
		return fmt.Errorf("pre_tokenizer Metaspace: only replacement \"▁\", prepend_scheme \"always\" and split true are supported")
	}
	return nil
}

// forEachMetaspaceWord is WhitespaceSplit then Metaspace: each
// whitespace-separated word gets "▁" in front (unless it starts with one)
// and is split before every "▁" that does not follow another "▁".
func forEachMetaspaceWord(s string, f func(string) bool) bool {
	for len(s) > 0 {
		// WhitespaceSplit: Rust's char::is_whitespace is Unicode White_Space,
		// as unicode.IsSpace.
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			break
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		s = s[end:]
		if !strings.HasPrefix(word, "▁") {
			word = "▁" + word
		}
		start := 0
		for i := 3; i < len(word); {
			if strings.HasPrefix(word[i:], "▁") {
				if !strings.HasSuffix(word[:i], "▁") {
					if !f(word[start:i]) {
						return false
					}
					start = i
				}
				i += 3
				continue
			}
			i++
		}
		if !f(word[start:]) {
			return false
		}
	}
	return true
}
