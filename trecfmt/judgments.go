package trecfmt

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
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
// into the compact form. The file is read in blocks (qrelsBlock), parsed
// on every core and appended block by block to the judgments' arrays, so
// that what it holds is the judgments and a few blocks, never the file
// whole; any error reads the file again with ReadQrels, whose error (file,
// line, problem) it returns.
func ReadJudgmentsFile(path string) (*Judgments, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	j, ok, err := readJudgments(f, size, runtime.GOMAXPROCS(0), qrelsBlock)
	if err != nil {
		return nil, err // *os.PathError: it names the file
	}
	if ok {
		return j, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return judgmentsSlow(f, path)
}

// qrelsBlock is the size of the blocks ReadJudgmentsFile reads and parses
// (a line longer than a block makes its block longer); a variable so that
// tests can cut small inputs.
var qrelsBlock = 1 << 20

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

// judgmentsSlow reads r with ReadQrels (which makes the errors) into the
// compact form; a grade that does not fit 32 bits (which ReadQrels takes)
// is an error at its line.
func judgmentsSlow(r io.ReadSeeker, name string) (*Judgments, error) {
	q, err := ReadQrels(r, name)
	if err != nil {
		return nil, err
	}
	j, err := judgmentsOf(q, name)
	if err == nil {
		return j, nil
	}
	if _, serr := r.Seek(0, io.SeekStart); serr != nil {
		return nil, err
	}
	lr := newLineReader(r, name)
	for lr.next() {
		if g, _ := strconv.Atoi(string(lr.fields[3])); g < math.MinInt32 || g > math.MaxInt32 {
			return nil, syntaxErrorf(name, lr.line, "grade %d does not fit 32 bits", g)
		}
	}
	return nil, err
}

// judgmentsBlock is a block of whole qrels lines (the last one without its
// newline only at the end of the input) and what was parsed of it; its
// buffers are reused from block to block.
type judgmentsBlock struct {
	buf  []byte
	n    int // buf[:n] is the block
	part judgmentsPart
	done chan struct{} // closed when part is parsed
}

// judgedSeg is a run of consecutive judgments of query q, judgments lo to
// hi in the order of the input.
type judgedSeg struct {
	q, lo, hi int
	sorted    bool
}

// readJudgments reads qrels from r (see ReadQrels): one goroutine reads
// blocks of about block bytes cut at line ends, workers goroutines parse
// them (readJudgmentsPart), and the caller appends each block's ids,
// ends and grades, in order, to the judgments' arrays, sized from the
// first block and size (r's size, or -1 if not known). A query's lines
// are mostly consecutive, so the arrays in the order of the input are the
// judgments' own; only if a query's lines are not consecutive are they
// copied once more in query order. ok is false at anything that needs
// ReadQrels (an error, a document judged twice); err is a read error.
func readJudgments(r io.Reader, size int64, workers, block int) (j *Judgments, ok bool, err error) {
	workers, block = max(workers, 1), max(block, 1)
	nbufs := workers + 2
	free := make(chan *judgmentsBlock, nbufs)
	for range nbufs {
		free <- new(judgmentsBlock)
	}
	// Neither send blocks: there are nbufs blocks in all.
	jobs := make(chan *judgmentsBlock, nbufs)
	order := make(chan *judgmentsBlock, nbufs)
	stop := make(chan struct{})
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		readErr = readQrelsBlocks(r, size, block, free, stop, func(b *judgmentsBlock) {
			b.done = make(chan struct{})
			order <- b
			jobs <- b
		})
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for b := range jobs {
				select {
				case <-stop:
					b.part.ok = false
				default:
					readJudgmentsPart(&b.part, unsafe.String(unsafe.SliceData(b.buf), b.n))
				}
				close(b.done)
			}
		}()
	}
	defer func() {
		if !ok && err == nil {
			close(stop)
			for range order { // let the reader finish
			}
		}
		wg.Wait()
	}()

	var ids []byte
	var ends []uint32
	var grades []int32
	var qids []string
	var segs []judgedSeg
	index := make(map[string]int)
	scattered := false // a query's lines are not all consecutive
	read := 0          // bytes of the blocks appended
	for b := range order {
		<-b.done
		p := &b.part
		if !p.ok || len(ids)+len(p.ids) > maxJudgedBytes {
			return nil, false, nil
		}
		read += b.n
		if ids == nil {
			ids, ends, grades = sizeJudgments(p, read, size)
		}
		for si, s := range p.segs {
			lo := len(ends) + s.lo
			n := s.hi - s.lo
			if si == 0 && len(segs) > 0 && qids[segs[len(segs)-1].q] == s.qid {
				// The query of the previous block's last line goes on.
				last := &segs[len(segs)-1]
				last.sorted = last.sorted && s.sorted && string(p.id(s.lo)) > string(lastID(ids, ends))
				last.hi += n
				continue
			}
			q, seen := index[s.qid]
			if seen {
				scattered = true
			} else {
				q = len(qids)
				index[s.qid] = q
				qids = append(qids, s.qid)
			}
			segs = append(segs, judgedSeg{q: q, lo: lo, hi: lo + n, sorted: s.sorted})
		}
		shift := uint32(len(ids))
		ids = append(ids, p.ids...)
		at := len(ends)
		ends = slices.Grow(ends, len(p.ends))[:at+len(p.ends)]
		for k, e := range p.ends {
			ends[at+k] = e + shift
		}
		grades = append(grades, p.grades...)
		free <- b
	}
	if readErr != nil {
		return nil, false, readErr
	}
	j = &Judgments{QIDs: qids, Starts: make([]int, 1, len(qids)+1), Ends: ends, Grades: grades}
	if scattered {
		j = regroup(qids, segs, ids, ends, grades)
	} else if len(ids) > 0 {
		// ids is not written to again.
		j.IDs = unsafe.String(&ids[0], len(ids))
	}
	if !scattered {
		for _, s := range segs {
			j.Starts = append(j.Starts, s.hi)
		}
	}
	var set idSet
	pieces := make([]int, len(qids))
	for _, s := range segs {
		pieces[s.q]++
		if !s.sorted {
			pieces[s.q]++
		}
	}
	for i, n := range pieces {
		if n > 1 && !set.distinct(j, j.Starts[i], j.Starts[i+1]) {
			return nil, false, nil
		}
	}
	return j, true, nil
}

// readQrelsBlocks reads r into blocks from free, each ending at a line end
// (the last at the end of r), and hands each to send, until r ends, a read
// fails (its error) or stop is closed. A block is about size bytes, more
// if a line is longer.
func readQrelsBlocks(r io.Reader, size int64, block int, free <-chan *judgmentsBlock, stop <-chan struct{}, send func(*judgmentsBlock)) error {
	if size >= 0 && size < int64(block) {
		block = int(size) + 1 // one read finds the end
	}
	var carry []byte // what followed the last line end of the last block
	for {
		var b *judgmentsBlock
		select {
		case b = <-free:
		case <-stop:
			return nil
		}
		buf := b.buf[:cap(b.buf)]
		if len(buf) < max(block, 2*len(carry)) {
			buf = make([]byte, max(block, 2*len(carry)))
		}
		n := copy(buf, carry)
		end := -1 // the block is buf[:end]
		eof := false
		for end < 0 {
			m, err := io.ReadFull(r, buf[n:])
			n += m
			switch {
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				end, eof = n, true
			case err != nil:
				return err
			default:
				if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
					end = i + 1
				} else if n > maxLine {
					end = n // its line is too long: the part says so
				} else {
					buf = append(buf, make([]byte, len(buf))...)
				}
			}
		}
		carry = append(carry[:0], buf[end:n]...)
		b.buf, b.n = buf, end
		if end == 0 {
			return nil
		}
		send(b)
		if eof {
			return nil
		}
	}
}

// sizeJudgments returns the arrays for the judgments, empty, with room
// for all of them as estimated from the first block's part p (read bytes
// of the input of size bytes, -1 if not known) and a little more, within
// what a file of size bytes can hold. Room not used is never written, so
// the memory it stands for is not made resident.
func sizeJudgments(p *judgmentsPart, read int, size int64) ([]byte, []uint32, []int32) {
	nb, nl := len(p.ids), len(p.ends)
	if size > int64(read) && read > 0 {
		f := float64(size) / float64(read) * 1.03
		nb = int(min(float64(nb)*f+4096, float64(size), maxJudgedBytes+1))
		// The shortest line, "q 0 d 1\n", is 8 bytes.
		nl = int(min(float64(nl)*f+512, float64(size/8+1)))
	}
	return make([]byte, 0, max(nb, 1)), make([]uint32, 0, nl), make([]int32, 0, nl)
}

// lastID returns the last document id of ids with ends (not empty).
func lastID(ids []byte, ends []uint32) []byte {
	start := uint32(0)
	if n := len(ends); n > 1 {
		start = ends[n-2]
	}
	return ids[start:ends[len(ends)-1]]
}

// regroup returns the judgments of segs (over ids, ends and grades, in
// the order of the input) with each query's segments joined, queries in
// the order of qids.
func regroup(qids []string, segs []judgedSeg, ids []byte, ends []uint32, grades []int32) *Judgments {
	bySeg := make([][]int, len(qids))
	for i, s := range segs {
		bySeg[s.q] = append(bySeg[s.q], i)
	}
	j := &Judgments{QIDs: qids, Starts: make([]int, 1, len(qids)+1), Ends: make([]uint32, 0, len(ends)), Grades: make([]int32, 0, len(grades))}
	out := make([]byte, 0, len(ids))
	for _, ss := range bySeg {
		for _, si := range ss {
			s := segs[si]
			lo := uint32(0)
			if s.lo > 0 {
				lo = ends[s.lo-1]
			}
			shift := uint32(len(out)) - lo
			out = append(out, ids[lo:ends[s.hi-1]]...)
			for _, e := range ends[s.lo:s.hi] {
				j.Ends = append(j.Ends, e+shift)
			}
			j.Grades = append(j.Grades, grades[s.lo:s.hi]...)
		}
		j.Starts = append(j.Starts, len(j.Ends))
	}
	if len(out) > 0 {
		j.IDs = unsafe.String(&out[0], len(out))
	}
	return j
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

// readJudgmentsPart reads the qrels lines of s as ReadQrels does into p
// (reusing its arrays), copying the document ids into the part's ids. ok
// is false at anything ReadQrels reports as an error (the caller reads
// again with ReadQrels for the error and its line) and past
// maxJudgedBytes of ids; a document judged twice is left to the caller
// (the run of lines it is in is not sorted).
func readJudgmentsPart(p *judgmentsPart, s string) {
	n := strings.Count(s, "\n") + 1
	p.ok = false
	if cap(p.ends) < n {
		p.ends, p.grades = make([]uint32, 0, n), make([]int32, 0, n)
	}
	p.ends, p.grades, p.segs = p.ends[:0], p.grades[:0], p.segs[:0]
	// About half of a qrels line is its document id ("q12 0 doc0001234 1").
	if cap(p.ids) < len(s)/2+16 {
		p.ids = make([]byte, 0, len(s)/2+16)
	}
	p.ids = p.ids[:0]
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
				return
			}
			nf, ok := splitInto(line, f[:])
			if !ok {
				return
			}
			if nf == 0 || f[0][0] == '#' {
				continue
			}
			if nf != 4 {
				return
			}
			if g := f[3]; len(g) == 1 && '0' <= g[0] && g[0] <= '9' {
				grade = int(g[0] - '0')
			} else {
				v, err := strconv.Atoi(g)
				if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
					return
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
			return
		}
		p.ids = append(p.ids, doc...)
		p.ends = append(p.ends, uint32(len(p.ids)))
		p.grades = append(p.grades, int32(grade))
		p.segs[cur].hi = len(p.ends)
	}
	p.ok = true
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
