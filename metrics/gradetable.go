package metrics

import "github.com/retrievalbench/retrievalbench/internal/strhash"

// gradeTable looks up one query's grades: an open-addressing hash table
// built from the query's judgments for the query's scoring, reused from
// query to query. Looking up each of a query's results costs a hash and
// mostly one probe (the table is at most a quarter full and most results
// are not judged), less than a Go map lookup, whose general machinery a
// thousand lookups per query pay for.
type gradeTable struct {
	seed   uint64
	slots  []int32 // index+1 into docs and grades; 0 is empty
	docs   []string
	grades []int
	ideal  []float64
	// A bit per judged document at filterBit of its id: a result whose
	// bit is not set is not judged, without hashing its id.
	filter [16]uint64
}

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
// ideal gains are t's and valid until the next build.
func (t *gradeTable) build(qr map[string]int, lvl int) Judged {
	t.reset(len(qr))
	j := Judged{Ideal: t.ideal[:0]}
	for d, g := range qr {
		t.insert(d, g)
		j.add(g, lvl)
	}
	return t.finish(j)
}

// buildJudgments is build over judgments lo to hi of j.
func (t *gradeTable) buildJudgments(j *Judgments, lo, hi int, lvl int) Judged {
	t.reset(hi - lo)
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

// reset empties t for n judgments.
func (t *gradeTable) reset(n int) {
	size := 16
	for size < 4*n {
		size *= 2
	}
	if len(t.slots) != size {
		if t.slots == nil {
			t.seed = strhash.NewSeed()
		}
		t.slots = make([]int32, size)
	} else {
		clear(t.slots)
	}
	t.docs, t.grades = t.docs[:0], t.grades[:0]
	t.filter = [16]uint64{}
}

// insert puts judgment (d, g) into t.
func (t *gradeTable) insert(d string, g int) {
	mask := uint64(len(t.slots) - 1)
	t.docs = append(t.docs, d)
	t.grades = append(t.grades, g)
	h := strhash.String(d, t.seed) & mask
	for t.slots[h] != 0 {
		h = (h + 1) & mask
	}
	t.slots[h] = int32(len(t.docs))
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
	for h := strhash.String(doc, t.seed) & mask; ; h = (h + 1) & mask {
		i := t.slots[h]
		if i == 0 {
			return Unjudged
		}
		if t.docs[i-1] == doc {
			return t.grades[i-1]
		}
	}
}
