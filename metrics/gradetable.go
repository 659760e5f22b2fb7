package metrics

import "github.com/retrievalbench/retrievalbench/internal/strhash"

// gradeTable looks up one query's grades: an open-addressing hash table
// built from the query's judgments for the query's scoring, reused from
// query to query. Looking up each of a query's results costs a hash and
// mostly one probe (the table is at most half full), less than a Go map
// lookup, whose general machinery a thousand lookups per query pay for.
// check looks every result up once, finding its grade and a document
// retrieved twice in one pass: the results go into the same table as the
// judgments, so one hash of each result's id serves both.
type gradeTable struct {
	seed uint64
	// slots: 0 is empty, else the hash's high 32 bits (compared before
	// any id is) over a reference in the low 32 bits as an int32: k+1
	// for judgment k (docs[k], grades[k]), -(i+1) for result i of the
	// query being checked.
	slots  []uint64
	docs   []string
	grades []int
	seenAt []int32 // check: per judgment, the result that had its id, + 1
	ideal  []float64
	// A bit per judged document at filterBit of its id: a result whose
	// bit is not set is not judged, without hashing its id (grade).
	filter [16]uint64
}

// pooledUnjudged is the grade the table gives a document judged -1.
const pooledUnjudged = -2

// filterBit is a cheap function of an id's last three bytes and length,
// below 1024.
func filterBit(doc string) uint {
	n := len(doc)
	if n < 3 {
		return uint(n)
	}
	return (uint(doc[n-1]) ^ uint(doc[n-2])*10 ^ uint(doc[n-3])*100 ^ uint(n)<<5) & 1023
}

// build fills t with qr and returns what summarize(qr, lvl) returns; its
// ideal gains are t's and valid until the next build. The table has room
// for extra results to be checked (check).
func (t *gradeTable) build(qr map[string]int, lvl, extra int) Judged {
	t.reset(len(qr), extra)
	j := Judged{Ideal: t.ideal[:0]}
	for d, g := range qr {
		t.insert(d, g)
		j.add(g, lvl)
	}
	return t.finish(j)
}

// buildJudgments is build over judgments lo to hi of j.
func (t *gradeTable) buildJudgments(j *Judgments, lo, hi, lvl, extra int) Judged {
	t.reset(hi-lo, extra)
	jd := Judged{Ideal: t.ideal[:0]}
	start := uint32(0)
	if lo > 0 {
		start = j.Ends[lo-1]
	}
	for k, end := range j.Ends[lo:hi] {
		g := int(j.Grades[lo+k])
		t.insert(j.IDs[start:end], g)
		jd.add(g, lvl)
		start = end
	}
	return t.finish(jd)
}

// reset empties t for n judgments and extra results: at most a quarter
// full of judgments, at most half full with the results.
func (t *gradeTable) reset(n, extra int) {
	size := 16
	for size < 4*n || size < 2*(n+extra) {
		size *= 2
	}
	if len(t.slots) != size {
		if t.slots == nil {
			t.seed = strhash.NewSeed()
		}
		t.slots = make([]uint64, size)
	} else {
		clear(t.slots)
	}
	t.docs, t.grades = t.docs[:0], t.grades[:0]
	t.filter = [16]uint64{}
}

// slotOf returns the slot of hash h holding reference ref.
func slotOf(h uint64, ref int32) uint64 { return h>>32<<32 | uint64(uint32(ref)) }

// insert puts judgment (d, g) into t. A judgment of -1 (trec_eval: in
// the pool but not judged) is kept as -2, so that it is not read as
// Unjudged (not in the qrels at all), which trec_eval's infAP and
// relstring tell apart; every other use sees a negative grade either way.
func (t *gradeTable) insert(d string, g int) {
	if g == Unjudged {
		g = pooledUnjudged
	}
	mask := uint64(len(t.slots) - 1)
	t.docs = append(t.docs, d)
	t.grades = append(t.grades, g)
	h := strhash.String(d, t.seed)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slotOf(h, int32(len(t.docs)))
	b := filterBit(d)
	t.filter[b>>6] |= 1 << (b & 63)
}

// finish sorts j's ideal gains and keeps their buffer for the next build.
func (t *gradeTable) finish(j Judged) Judged {
	j.sortIdeal()
	t.ideal = j.Ideal
	return j
}

// grade returns doc's grade, or Unjudged.
func (t *gradeTable) grade(doc string) int {
	if b := filterBit(doc); t.filter[b>>6]&(1<<(b&63)) == 0 {
		return Unjudged
	}
	mask := uint64(len(t.slots) - 1)
	h := strhash.String(doc, t.seed)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return Unjudged
		}
		if (s^h)>>32 == 0 {
			if ref := int32(uint32(s)); ref > 0 && t.docs[ref-1] == doc {
				return t.grades[ref-1]
			}
		}
	}
}

// check sets rg[i] to the grade of results[i] (Unjudged when not judged)
// and returns the indexes of the first document id that repeats, at its
// first occurrence and its repetition (first again < again, as in a scan
// in order), or -1, -1. It puts the results into t, which build must have
// made room for; grade still reads t's judgments afterwards, and the
// next build empties it.
func (t *gradeTable) check(results []Result, rg []int) (first, again int) {
	if n := len(t.docs); cap(t.seenAt) < n {
		t.seenAt = make([]int32, n)
	} else {
		t.seenAt = t.seenAt[:n]
		clear(t.seenAt)
	}
	mask := uint64(len(t.slots) - 1)
	slots := t.slots
	for i, r := range results {
		h := strhash.String(r.DocID, t.seed)
		g := Unjudged
	probe:
		for k := h & mask; ; k = (k + 1) & mask {
			s := slots[k]
			switch {
			case s == 0:
				slots[k] = slotOf(h, -int32(i+1))
				break probe
			case (s^h)>>32 != 0:
				continue
			}
			if ref := int32(uint32(s)); ref > 0 {
				if t.docs[ref-1] == r.DocID {
					if at := t.seenAt[ref-1]; at != 0 {
						return int(at - 1), i
					}
					t.seenAt[ref-1] = int32(i + 1)
					g = t.grades[ref-1]
					break probe
				}
			} else if results[-ref-1].DocID == r.DocID {
				return int(-ref - 1), i
			}
		}
		rg[i] = g
	}
	return -1, -1
}
