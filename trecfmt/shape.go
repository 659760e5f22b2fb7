package trecfmt

import "encoding/binary"

// lineShape is the text around the fields that change from line to line:
// in a run most lines have the same bytes between the query id and the
// document id (" Q0 ") and from the end of the score to the end of the
// line (" tag"), so a line whose bytes there are those of the last line
// fastRunLine accepted needs only its query id, document id, rank and
// score read. Each parser keeps its own.
type lineShape struct {
	ok     bool
	mid    []byte // from the end of the query id to the document id
	tail   []byte // from the end of the score to the end of the line
	tag    int    // the tag's offset in tail
	tagLen int

	// With mid and tail of at most 8 bytes (mostly), their bytes as
	// words, compared with a word of the line (under mask).
	words             bool
	midWord, tailWord uint64
	midMask, tailMask uint64
}

// lowBytes is the mask of the n (at most 8) low bytes of a word.
func lowBytes(n int) uint64 { return 1<<(8*n) - 1 } // n = 8: all ones

// set takes the shape of b, a line fastRunLine accepted as l.
func (t *lineShape) set(b []byte, l runLine) {
	off := func(f []byte) int { return cap(b) - cap(f) }
	if off(l.qid) != 0 { // white space before the query id
		t.ok = false
		return
	}
	te := off(l.tag)
	for te > 0 && spaces[b[te-1]] {
		te--
	}
	t.mid = append(t.mid[:0], b[len(l.qid):off(l.doc)]...)
	t.tail = append(t.tail[:0], b[te:]...)
	t.tag, t.tagLen = off(l.tag)-te, len(l.tag)
	t.ok = true
	t.words = len(t.mid) <= 8 && len(t.tail) <= 8
	if t.words {
		t.midWord = leBytes(t.mid)
		t.tailWord = leBytes(t.tail)
		t.midMask, t.tailMask = lowBytes(len(t.mid)), lowBytes(len(t.tail))
	}
}

// leBytes returns b (at most 8 bytes) as a little-endian word.
func leBytes(b []byte) uint64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// same reports whether b[i:i+len(want)] holds want, whose bytes are the
// word w under mask m when words is set.
func (t *lineShape) same(b []byte, i int, want []byte, w, m uint64) bool {
	if t.words {
		if c := b[:cap(b)]; i+8 <= len(c) {
			return binary.LittleEndian.Uint64(c[i:])&m == w
		}
	}
	return string(b[i:i+len(want)]) == string(want)
}

// parse is fastRunLine for a line of t's shape: the same outcome when ok,
// and ok is false for any line not of the shape (which fastRunLine then
// reads).
func (t *lineShape) parse(b []byte) (l runLine, ok bool) {
	if !t.ok || len(b) == 0 || spaces[b[0]] || b[0] == '#' {
		return l, false
	}
	qe := fieldEnd(b, 0)
	ds := qe + len(t.mid)
	te := len(b) - len(t.tail)
	if ds >= te || !t.same(b, qe, t.mid, t.midWord, t.midMask) || !t.same(b, te, t.tail, t.tailWord, t.tailMask) || spaces[b[ds]] {
		return l, false
	}
	// Between ds and te: the document id, the rank and the score, which
	// must end at te (where the tail's white space begins).
	m := b[:te]
	de := fieldEnd(m, ds)
	i := skipSpaces(m, de)
	rank := i
	for i < te && m[i]-'0' <= 9 {
		i++
	}
	if i == rank || i-rank > 18 || i == te || !spaces[m[i]] {
		return l, false
	}
	if l.score, i, ok = plainDecimal(m, skipSpaces(m, i), te); !ok || i != te {
		return l, false
	}
	l.qid, l.doc = b[:qe], b[ds:de]
	l.tag = b[te+t.tag : te+t.tag+t.tagLen]
	return l, true
}
