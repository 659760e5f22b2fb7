package trecfmt

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/retrievalbench/retrievalbench/internal/strhash"
)

// Judgments is qrels in a compact form for millions of judgments, with no
// pointer per judgment (nothing for the garbage collector to mark): query
// i, QIDs[i], has judgments k from Starts[i] to Starts[i+1] (exclusive),
// document IDs[Ends[k-1]:Ends[k]] (from 0 for k = 0) with grade Grades[k];
// queries in the order of their first line. Per judgment it costs the id's
// bytes, a uint32 and an int32, where a Qrels map costs several times that
// in string headers, table slots and growth. It has the fields of
// metrics.Judgments, so it converts to it without this package knowing of
// metrics.
type Judgments struct {
	QIDs   []string
	Starts []int // len(QIDs)+1 entries; Starts[0] is 0
	IDs    string
	Ends   []uint32
	Grades []int32
}

// Doc returns the document id of judgment k.
func (j *Judgments) Doc(k int) string {
	start := uint32(0)
	if k > 0 {
		start = j.Ends[k-1]
	}
	return j.IDs[start:j.Ends[k]]
}

// maxJudgedBytes is the most bytes of document ids Judgments holds (its
// ends are uint32).
const maxJudgedBytes = 1<<32 - 1

// ReadJudgmentsFile reads the TREC qrels file at path as ReadQrelsFile does,
// into the compact form. The file is read whole and parsed in parts on
// every core; any error reads it again with ReadQrels, whose error (file,
// line, problem) it returns.
func ReadJudgmentsFile(path string) (*Judgments, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if j, ok := readJudgmentsFast(data, runtime.GOMAXPROCS(0)); ok {
		return j, nil
	}
	// The contents were let go of: read them again for the error.
	if data, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	return judgmentsSlow(data, path)
}

// judgmentsPart is what readJudgmentsPart makes of one part: its lines'
// document ids (back to back in ids, line k's ending at ends[k]) and
// grades, and the runs of consecutive lines of one query.
type judgmentsPart struct {
	ids    []byte
	ends   []uint32
	grades []int32
	segs   []qrelsRun
	ok     bool
}

// id returns the document id of the part's line k.
func (p *judgmentsPart) id(k int) []byte {
	start := uint32(0)
	if k > 0 {
		start = p.ends[k-1]
	}
	return p.ids[start:p.ends[k]]
}

// qrelsRun is a run of consecutive lines of one query: lines lo to hi of
// its part.
type qrelsRun struct {
	qid    string
	lo, hi int
	// sorted: the documents are in strictly increasing order, so none is
	// judged twice (qrels are mostly written so).
	sorted bool
}

// readJudgmentsParallel reads data (see ReadQrels) in up to parts pieces
// cut at line ends, one goroutine each, and joins the pieces of each
// query; any error reads data again with ReadQrels for its message.
func readJudgmentsParallel(data []byte, name string, parts int) (*Judgments, error) {
	if j, ok := readJudgmentsFast(data, parts); ok {
		return j, nil
	}
	return judgmentsSlow(data, name)
}

// judgmentsSlow reads data with ReadQrels (which makes the errors) into
// the compact form.
func judgmentsSlow(data []byte, name string) (*Judgments, error) {
	q, err := ReadQrels(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	return judgmentsOf(q, name)
}

// readJudgmentsFast is readJudgmentsParallel's parallel reading; ok is
// false at anything that needs ReadQrels (an error, a document judged
// twice). data is not used after the parts are read, and the memory it
// held is collected before the parts are joined (the joined judgments
// reuse it: a qrels file of 100 MB would otherwise stay in the peak).
func readJudgmentsFast(data []byte, parts int) (*Judgments, bool) {
	if len(data) == 0 {
		return &Judgments{Starts: []int{0}}, true
	}
	// The parts read the file's contents in place; the ids are copied out.
	all := unsafe.String(&data[0], len(data))
	data = nil
	cuts := cutLines(all, parts)
	got := make([]judgmentsPart, len(cuts))
	var wg sync.WaitGroup
	start := 0
	for i, end := range cuts {
		wg.Add(1)
		go func(i int, part string) {
			defer wg.Done()
			got[i] = readJudgmentsPart(part)
		}(i, all[start:end])
		start = end
	}
	wg.Wait()
	all = ""
	for _, p := range got {
		if !p.ok {
			return nil, false
		}
	}
	runtime.GC()
	// Each query's runs, in the order of the query's first line.
	type piece struct{ part, seg int }
	index := make(map[string]int)
	var qids []string
	var pieces [][]piece
	// A query whose documents are not known to be distinct: in pieces, or
	// not in increasing order.
	var check []int
	n, nb := 0, 0
	for pi := range got {
		p := &got[pi]
		for si, s := range p.segs {
			i, seen := index[s.qid]
			if !seen {
				i = len(qids)
				index[s.qid] = i
				qids = append(qids, s.qid)
				pieces = append(pieces, nil)
				if !s.sorted {
					check = append(check, i)
				}
			} else if len(pieces[i]) == 1 {
				check = append(check, i)
			}
			pieces[i] = append(pieces[i], piece{pi, si})
			n += s.hi - s.lo
			lo := uint32(0)
			if s.lo > 0 {
				lo = p.ends[s.lo-1]
			}
			nb += int(p.ends[s.hi-1] - lo)
		}
	}
	if nb > maxJudgedBytes {
		return nil, false
	}
	j := &Judgments{QIDs: qids, Starts: make([]int, 1, len(qids)+1), Ends: make([]uint32, 0, n), Grades: make([]int32, 0, n)}
	ids := make([]byte, 0, nb)
	for _, ps := range pieces {
		for _, pc := range ps {
			p := &got[pc.part]
			s := &p.segs[pc.seg]
			lo := uint32(0)
			if s.lo > 0 {
				lo = p.ends[s.lo-1]
			}
			shift := uint32(len(ids)) - lo
			ids = append(ids, p.ids[lo:p.ends[s.hi-1]]...)
			for _, e := range p.ends[s.lo:s.hi] {
				j.Ends = append(j.Ends, e+shift)
			}
			j.Grades = append(j.Grades, p.grades[s.lo:s.hi]...)
		}
		j.Starts = append(j.Starts, len(j.Ends))
	}
	if len(ids) > 0 {
		// ids is not written to again.
		j.IDs = unsafe.String(&ids[0], len(ids))
	}
	var set idSet
	for _, i := range check {
		if !set.distinct(j, j.Starts[i], j.Starts[i+1]) {
			return nil, false
		}
	}
	return j, true
}

// cutLines returns the ends of up to parts pieces of s of about equal size,
// each ending at a line end (or the end of s), no smaller than minQrelsPart
// unless s is.
func cutLines(s string, parts int) []int {
	parts = max(1, min(parts, len(s)/max(minQrelsPart, 1)))
	var cuts []int
	for start := 0; start < len(s); {
		end := len(s)
		if len(cuts) < parts-1 {
			end = start + (len(s)-start)/(parts-len(cuts))
			if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(s)
			}
		}
		cuts = append(cuts, end)
		start = end
	}
	return cuts
}

// readJudgmentsPart reads the qrels lines of s as ReadQrels does, copying
// the document ids into the part's ids. ok is false at anything ReadQrels
// reports as an error (the caller reads again with ReadQrels for the error
// and its line), at a document judged twice in one run of lines of its
// query, and past maxJudgedBytes of ids.
func readJudgmentsPart(s string) (p judgmentsPart) {
	n := strings.Count(s, "\n") + 1
	p.ends, p.grades = make([]uint32, 0, n), make([]int32, 0, n)
	// About half of a qrels line is its document id ("q12 0 doc0001234 1").
	p.ids = make([]byte, 0, len(s)/2+16)
	var f [5]string
	qids := make(stringInterner)
	cur := -1 // index into p.segs of the current query's run
	for len(s) > 0 {
		var doc string
		var grade int
		if q, d, g, rest, ok := fastQrelsLine(s); ok {
			f[0], doc, grade, s = q, d, g, rest
		} else {
			line := s
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				line, s = s[:i], s[i+1:]
			} else {
				s = ""
			}
			if len(line) >= maxLine {
				return p
			}
			nf, ok := splitInto(line, f[:])
			if !ok {
				return p
			}
			if nf == 0 || f[0][0] == '#' {
				continue
			}
			if nf != 4 {
				return p
			}
			if g := f[3]; len(g) == 1 && '0' <= g[0] && g[0] <= '9' {
				grade = int(g[0] - '0')
			} else {
				v, err := strconv.Atoi(g)
				if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
					return p
				}
				grade = v
			}
			doc = f[2]
		}
		if cur < 0 || f[0] != p.segs[cur].qid {
			// The query id is copied (once per part): a substring would
			// hold the whole file's contents.
			p.segs = append(p.segs, qrelsRun{qid: qids.get(f[0]), lo: len(p.ends), hi: len(p.ends), sorted: true})
			cur = len(p.segs) - 1
		} else if sg := &p.segs[cur]; sg.sorted && doc <= string(p.id(len(p.ends)-1)) {
			sg.sorted = false
		}
		if len(p.ids)+len(doc) > maxJudgedBytes {
			return p
		}
		p.ids = append(p.ids, doc...)
		p.ends = append(p.ends, uint32(len(p.ids)))
		p.grades = append(p.grades, int32(grade))
		p.segs[cur].hi = len(p.ends)
	}
	p.ok = true
	return p
}

// fastQrelsLine reads the first line of s if it is what qrels mostly hold:
// four fields separated by spaces or tabs, the first not a comment, the
// last a grade of one digit (or a minus and one digit), ending at a
// newline or the end of s, shorter than maxLine. It returns the query id,
// the document id, the grade and the rest of s after the line; ok is false
// for any other line (which the general path reads, and reports if wrong).
// The fields are found eight bytes at a time.
func fastQrelsLine(s string) (qid, doc string, grade int, rest string, ok bool) {
	qe := wordFieldEnd(s, 0)
	if qe == 0 || s[0] == '#' {
		return
	}
	i := skipBlanks(s, qe)
	e := wordFieldEnd(s, i)
	if e == i {
		return
	}
	ds := skipBlanks(s, e)
	de := wordFieldEnd(s, ds)
	if de == ds {
		return
	}
	i = skipBlanks(s, de)
	if i == de || i >= len(s) {
		return
	}
	neg := s[i] == '-'
	if neg {
		i++
	}
	if i >= len(s) || s[i]-'0' > 9 {
		return
	}
	grade = int(s[i] - '0')
	if neg {
		grade = -grade
	}
	i++
	if i >= maxLine {
		return
	}
	switch {
	case i == len(s):
		rest = ""
	case s[i] == '\n':
		rest = s[i+1:]
	default:
		return
	}
	return s[:qe], s[ds:de], grade, rest, true
}

// skipBlanks returns the index of the first byte of s at or after i that
// is not a space or a tab (the separators fastQrelsLine accepts).
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// wordFieldEnd returns the index of the first byte of s at or after i that
// is at most ' ' (white space and the other control bytes), or len(s),
// testing eight bytes at a time as fieldEnd does.
func wordFieldEnd(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := (x - '!'*ones) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(s) && s[i] > ' ' {
		i++
	}
	return i
}

// judgmentsOf converts qrels (ReadQrels' result) to the compact form; name
// is the file, for the error of a grade that does not fit 32 bits.
func judgmentsOf(q Qrels, name string) (*Judgments, error) {
	j := &Judgments{Starts: []int{0}}
	var ids []byte
	for _, qid := range sortedKeys(q) {
		for _, d := range sortedKeys(q[qid]) {
			g := q[qid][d]
			if g < math.MinInt32 || g > math.MaxInt32 {
				return nil, fmt.Errorf("%s: query %q, document %q: grade %d does not fit 32 bits", name, qid, d, g)
			}
			if len(ids)+len(d) > maxJudgedBytes {
				return nil, fmt.Errorf("%s: more than %d bytes of judged document ids", name, maxJudgedBytes)
			}
			ids = append(ids, d...)
			j.Ends = append(j.Ends, uint32(len(ids)))
			j.Grades = append(j.Grades, int32(g))
		}
		j.QIDs = append(j.QIDs, qid)
		j.Starts = append(j.Starts, len(j.Ends))
	}
	j.IDs = string(ids)
	return j, nil
}

// idSet is an open-addressing set of ids, reused from query to query.
type idSet struct {
	seed  uint64
	slots []int32 // index+1 into the judgments being checked; 0 is empty
}

// distinct reports whether no document id of j's judgments lo to hi
// appears twice.
func (s *idSet) distinct(j *Judgments, lo, hi int) bool {
	size := 16
	for size < 2*(hi-lo) {
		size *= 2
	}
	if len(s.slots) < size {
		s.slots = make([]int32, size)
		s.seed = strhash.NewSeed()
	}
	slots := s.slots[:size]
	clear(slots)
	mask := uint64(size - 1)
	for k := lo; k < hi; k++ {
		id := j.Doc(k)
		h := strhash.String(id, s.seed) & mask
		for ; slots[h] != 0; h = (h + 1) & mask {
			if j.Doc(lo+int(slots[h])-1) == id {
				return false
			}
		}
		slots[h] = int32(k - lo + 1)
	}
	return true
}
