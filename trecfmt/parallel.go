package trecfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/retrievalbench/retrievalbench/internal/strhash"
)

// ScanOptions tunes ScanGroups and ScanQueries.
type ScanOptions struct {
	// AllowExtraFields accepts lines with more than six fields, as
	// RunReader.AllowExtraFields does.
	AllowExtraFields bool
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// FnChecksRepeats leaves the check for a document repeated within a
	// query to fn, which can make it in a pass over the results it makes
	// anyway (metrics.Evaluator.ScoreChecked hashes each id once for
	// its grade and the check): fn must check every query it is handed
	// and report a repeat by returning a *RepeatedError, which the
	// scanner turns into the error it makes itself without the option,
	// naming both lines.
	FnChecksRepeats bool
}

// RepeatedError is what fn returns, under ScanOptions.FnChecksRepeats,
// for a document repeated within the results it was handed: results[First]
// and results[Again] have one document id, and Again is the first index at
// which an id repeats (First < Again).
type RepeatedError struct{ First, Again int }

func (e *RepeatedError) Error() string {
	return fmt.Sprintf("results %d and %d have one document id", e.First, e.Again)
}

// call hands s to fn, after checking it for repeated documents unless fn
// does (FnChecksRepeats); either way a repeat is the error naming both
// lines. s.lines must hold the lines of s.results when lines is nil, else
// lines fills them in (ScanQueries gathers them only for the error).
func (p *parser) call(s *segment, fn func(qid string, results []Result) error, lines func(*segment)) error {
	if !p.fnChecks {
		first, again := p.dups.find(s.results)
		if again < 0 {
			return fn(s.qid, s.results)
		}
		return p.repeatError(s, first, again, lines)
	}
	err := fn(s.qid, s.results)
	var re *RepeatedError
	if errors.As(err, &re) && 0 <= re.First && re.First < re.Again && re.Again < len(s.results) {
		return p.repeatError(s, re.First, re.Again, lines)
	}
	return err
}

// repeatError reports that results first and again of s repeat one
// document, naming both lines.
func (p *parser) repeatError(s *segment, first, again int, lines func(*segment)) error {
	if lines != nil {
		lines(s)
	}
	return syntaxErrorf(p.name, int(s.lines[again]),
		"document %q retrieved twice for query %q (first on line %d)", s.results[again].DocID, s.qid, s.lines[first])
}

// blockSize is the size of the blocks of whole lines the parsing
// goroutines share out (ScanQueries' are twice as large); a variable so
// that tests can make blocks end inside every query. 4 MiB rather than 1:
// fewer hand-offs between the reader, the parsers and the consumer cost
// the second thread less (dense shape, 5 alternating pairs: 1.68 → 1.60 s
// CPU, medians), for 12 MiB more buffers.
var blockSize = 4 << 20

// block is one piece of the input cut at a line boundary, with what a
// worker made of it.
type block struct {
	seq  int
	buf  []byte // whole lines
	line int    // line number of the first line of buf

	// Filled in by the worker.
	heads []segHead // the block's runs of lines with one query id, in order
	first *segment  // the first run (it may continue a run of the previous block)
	last  *segment  // the last run when there are two or more (it may go on in the next block)
	tag   string    // run tag of the block's last content line
	err   error     // first error of the block; heads stop at it

	packed *packedBlock // ScanQueries: the block's lines packed by query id
}

// segHead is a run of lines with one query id.
type segHead struct {
	qid  string
	line int // first line
}

// segment is a run of lines with one query id, ready for fn: document ids
// are strings.
type segment struct {
	qid     string
	results []Result
	lines   []int32
}

// lineRec is one parsed run line inside a block.
type lineRec struct {
	off, end int32 // document id: buf[off:end]
	line     int32
	group    int32 // queryBlock: the line's group
	score    float64
}

// parser parses blocks; each worker has its own.
type parser struct {
	name       string
	allowExtra bool
	fields     [][]byte
	qids       interner
	tags       lastInterner
	dups       dupSet
	inner      segment
	fnChecks   bool // ScanOptions.FnChecksRepeats
	touched    byte // ScanQueries: the bytes it loads ahead, summed so that the loads are kept
	shape      lineShape
	recs       []lineRec // queryBlock's buffer

	// queryBlock's numbering of query ids, kept from block to block:
	// qidNum[id] indexes qidStr and groupOf (the block's group + 1, 0 when
	// the query has no line in the block).
	qidNum  idTable
	qidStr  []string
	groupOf []int32
}

func newParser(name string, allowExtra bool) *parser {
	return &parser{name: name, allowExtra: allowExtra, fields: make([][]byte, 0, 8),
		qids: make(interner), tags: lastInterner{in: make(interner)}}
}

// parseRunFields checks one content line split into fields as RunReader
// does and returns its score.
func parseRunFields(name string, line int, f [][]byte, allowExtra bool) (float64, error) {
	if len(f) < 6 || (len(f) > 6 && !allowExtra) {
		return 0, syntaxErrorf(name, line, "%d fields, want 6 (qid Q0 docno rank score tag)", len(f))
	}
	if _, err := strconv.Atoi(string(f[3])); err != nil {
		return 0, syntaxErrorf(name, line, "rank %q is not an integer", f[3])
	}
	score, err := parseScore(f[4])
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, syntaxErrorf(name, line, "score %q is not a number", f[4])
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return 0, syntaxErrorf(name, line, "score %q is not finite", f[4])
	}
	return score, nil
}

// runLine is one content line of a run: its query id, document id and
// run tag (sub-slices of the block) and its score.
type runLine struct {
	qid, doc, tag []byte
	score         float64
}

// eachRunLine calls fn with each content line of b (not blank, not a '#'
// comment) parsed and checked as RunReader does, and its line number; an
// error from fn stops the walk.
func (p *parser) eachRunLine(b []byte, first int, fn func(line int, l runLine) error) error {
	line := first
	for start := 0; start < len(b); line++ {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
			if end-start > maxLine {
				return syntaxErrorf(p.name, line, "line longer than %d bytes", maxLine)
			}
		} else {
			end += start
			if end-start >= maxLine { // bufio.Scanner's limit, as lineReader reads
				return syntaxErrorf(p.name, line, "line longer than %d bytes", maxLine)
			}
		}
		l, ok := p.shape.parse(b[start:end])
		if !ok {
			if l, ok = fastRunLine(b[start:end], p.allowExtra); ok {
				p.shape.set(b[start:end], l)
			}
		}
		if !ok {
			// Anything unusual (and every error) takes the general path.
			p.fields = splitFields(p.fields[:0], b[start:end])
			if len(p.fields) == 0 || p.fields[0][0] == '#' {
				start = end + 1
				continue
			}
			score, err := parseRunFields(p.name, line, p.fields, p.allowExtra)
			if err != nil {
				return err
			}
			f := p.fields
			l = runLine{qid: f[0], doc: f[2], tag: f[5], score: score}
		}
		if err := fn(line, l); err != nil {
			return err
		}
		start = end + 1
	}
	return nil
}

// fastRunLine parses, in one pass over its bytes, a line of six fields
// (more with allowExtra) whose rank is plain digits and whose score a plain
// decimal of at most 15 digits, which is what search systems write; the
// score is exactly parseScore's. ok is false for any other line (blank, a
// comment, another shape, or an error), which goes to the general path.
func fastRunLine(b []byte, allowExtra bool) (l runLine, ok bool) {
	n := len(b)
	s := skipSpaces(b, 0)
	i := fieldEnd(b, s)
	if l.qid = b[s:i]; i == s || b[s] == '#' {
		return l, false
	}
	s = skipSpaces(b, i)
	if i = fieldEnd(b, s); i == s {
		return l, false
	}
	s = skipSpaces(b, i)
	if i = fieldEnd(b, s); i == s {
		return l, false
	}
	l.doc = b[s:i]
	i = skipSpaces(b, i)
	rank := i
	for i < n && b[i]-'0' <= 9 {
		i++
	}
	if rank == i || i-rank > 18 || (i < n && !spaces[b[i]]) {
		return l, false
	}
	if l.score, i, ok = plainDecimal(b, skipSpaces(b, i), n); !ok || (i < n && !spaces[b[i]]) {
		return l, false
	}
	s = skipSpaces(b, i)
	if i = fieldEnd(b, s); i == s {
		return l, false
	}
	l.tag = b[s:i]
	if !allowExtra && skipSpaces(b, i) != n {
		return l, false
	}
	return l, true
}

// skipSpaces returns the index of the first byte of b at or after i that is
// not white space, or len(b).
func skipSpaces(b []byte, i int) int {
	for i < len(b) && spaces[b[i]] {
		i++
	}
	return i
}

// fieldEnd returns the index of the first white space byte of b at or
// after i, or len(b). It tests eight bytes at a time for one below '!'
// (every white space byte is): in the lowest byte the test flags, the flag
// is exact (a borrow only carries upwards), and a flagged byte that is not
// white space is skipped. The words may reach past len(b) into b's
// capacity (a line's newline and the lines after it in the block), which
// only ends the field at len(b).
func fieldEnd(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n, w := len(b), b[:cap(b)]
	for i < n && i+8 <= len(w) {
		x := binary.LittleEndian.Uint64(w[i:])
		if m := (x - '!'*ones) &^ x & highs; m != 0 {
			j := i + bits.TrailingZeros64(m)/8
			if j >= n {
				return n
			}
			if spaces[w[j]] {
				return j
			}
			i = j + 1
			continue
		}
		i += 8
	}
	if i >= n {
		return n
	}
	for i < n && !spaces[b[i]] {
		i++
	}
	return i
}

// docRec returns the lineRec of a line whose document id doc is a
// sub-slice of buf.
func docRec(buf, doc []byte, line int, score float64) lineRec {
	off := cap(buf) - cap(doc)
	return lineRec{off: int32(off), end: int32(off + len(doc)), line: int32(line), score: score}
}

// dupSet finds a document id repeated in a list: an open-addressing hash
// set of indexes into the list, reused from list to list (a Go map costs
// several times more per id here, for the clearing and the generic hashing).
type dupSet struct {
	seed  uint64
	slots []int32 // index+1 into the list; 0 is empty
}

// find returns the indexes of the first repeated id's first occurrence
// and of its repetition, or -1, -1.
func (d *dupSet) find(rs []Result) (first, again int) {
	size := 16
	for size < 2*len(rs) {
		size *= 2
	}
	if len(d.slots) != size {
		if d.slots == nil {
			d.seed = strhash.NewSeed()
		}
		d.slots = make([]int32, size)
	} else {
		clear(d.slots)
	}
	mask := uint64(size - 1)
	for i, r := range rs {
		h := strhash.String(r.DocID, d.seed) & mask
		for {
			j := d.slots[h]
			if j == 0 {
				d.slots[h] = int32(i + 1)
				break
			}
			if rs[j-1].DocID == r.DocID {
				return int(j - 1), i
			}
			h = (h + 1) & mask
		}
	}
	return -1, -1
}

// readBlocks cuts r into blocks of whole lines of about blockSize bytes
// (about size bytes) and sends them, numbered, on out until the input ends, an error occurs or
// stop is closed. free supplies recycled buffers.
func readBlocks(r io.Reader, name string, size int, out chan<- *block, free <-chan []byte, stop <-chan struct{}) error {
	defer close(out)
	var carry []byte
	line := 1
	for seq := 0; ; seq++ {
		var buf []byte
		select {
		case buf = <-free:
		case <-stop:
			return nil
		}
		buf = append(buf[:0], carry...)
		eof := false
		for {
			if cap(buf)-len(buf) < max(size/2, 1) {
				buf = slices.Grow(buf, size)
			}
			n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				eof = true
				break
			}
			if err != nil {
				return err
			}
			if bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
				break
			}
			if len(buf) > maxLine { // one line fills the buffer
				return syntaxErrorf(name, line, "line longer than %d bytes", maxLine)
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		b := &block{seq: seq, buf: buf[:cut], line: line}
		line += bytes.Count(b.buf, []byte{'\n'})
		select {
		case out <- b:
		case <-stop:
			return nil
		}
		if eof {
			return nil
		}
	}
}

// pipeline runs readBlocks and workers that apply work to each block, and
// hands the finished blocks to consume in input order. It returns the first
// error of the reader or of consume.
func pipeline(r io.Reader, name string, size, workers int, work func(p *parser, b *block), newParser func() *parser, consume func(b *block) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	depth := 2 * workers
	in := make(chan *block)
	done := make(chan *block, depth)
	free := make(chan []byte, depth+1)
	for range depth {
		free <- nil
	}
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() { readErr <- readBlocks(r, name, size, in, free, stop) }()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newParser()
			for b := range in {
				work(p, b)
				done <- b
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	pending := map[int]*block{}
	next := 0
	var err error
	for b := range done {
		pending[b.seq] = b
		for {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if err == nil {
				if err = consume(b); err != nil {
					close(stop)
				}
			}
			free <- b.buf[:0]
		}
	}
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	return err
}

// ScanGroups reads a run whose lines are grouped by query, parsing blocks
// of lines in parallel, and calls fn once per query with its results in
// file order. fn is called from several goroutines at once and in no
// particular order; the slice and its document ids are only valid during
// the call (the ids point into the read buffer, which is reused: keep a
// strings.Clone of an id, not the id). The query id may be kept. It returns
// the run tag of the last line. It checks what GroupReader checks, with the
// same errors naming file and line: a query id that comes back after other
// queries is an error wrapping ErrNotGrouped (read such a run with
// ScanQueries). On an error, fn may already have been called for queries
// after the bad line.
func ScanGroups(r io.Reader, name string, opt ScanOptions, fn func(qid string, results []Result) error) (string, error) {
	work := func(p *parser, b *block) { p.groupBlock(b, fn) }
	done := map[string]bool{}
	var pend *segment
	var tag string
	newP := func() *parser {
		p := newParser(name, opt.AllowExtraFields)
		p.fnChecks = opt.FnChecksRepeats
		return p
	}
	p := newP()
	flush := func() error {
		if pend == nil {
			return nil
		}
		s := pend
		pend = nil
		return p.call(s, fn, nil)
	}
	consume := func(b *block) error {
		for i, h := range b.heads {
			if i == 0 && pend != nil && h.qid == pend.qid {
				pend.results = append(pend.results, b.first.results...)
				pend.lines = append(pend.lines, b.first.lines...)
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if done[h.qid] {
				return &SyntaxError{File: name, Line: h.line, Err: ErrNotGrouped,
					Msg: fmt.Sprintf("query %q continues after other queries: %v", h.qid, ErrNotGrouped)}
			}
			done[h.qid] = true
			switch {
			case i == 0:
				pend = b.first
			case i == len(b.heads)-1:
				pend = b.last
			}
		}
		if b.err != nil {
			return b.err
		}
		if b.tag != "" {
			tag = b.tag
		}
		return nil
	}
	err := pipeline(r, name, blockSize, opt.Workers, work, newP, consume)
	if err == nil {
		err = flush()
	}
	if err != nil {
		return "", err
	}
	return tag, nil
}

// groupBlock parses b into its runs of lines with one query id, calling fn
// for the runs strictly inside the block (complete queries when the run is
// grouped) and keeping the first and last for the consumer. The document
// ids are substrings of one copy of the block.
func (p *parser) groupBlock(b *block, fn func(qid string, results []Result) error) {
	// The document ids handed to fn are substrings of the block's buffer,
	// not a copy of it: the buffer is not written to until the consumer
	// is done with the block, and fn returns before that. The first and
	// last runs, which the consumer may hold past the block, get their own
	// copy of their ids.
	var str string
	if len(b.buf) > 0 {
		str = unsafe.String(unsafe.SliceData(b.buf), len(b.buf))
	}
	s := &p.inner // the run being read; an inner run is done with when fn returns
	s.qid, s.results, s.lines = "", s.results[:0], s.lines[:0]
	var curLine int
	keep := func() *segment {
		return &segment{qid: s.qid, results: ownIDs(s.results), lines: slices.Clone(s.lines)}
	}
	end := func() error {
		if len(s.results) == 0 {
			return nil
		}
		idx := len(b.heads)
		b.heads = append(b.heads, segHead{qid: s.qid, line: curLine})
		if idx == 0 {
			b.first = keep()
			return nil
		}
		return p.call(s, fn, nil)
	}
	var lastTag []byte
	err := p.eachRunLine(b.buf, b.line, func(line int, l runLine) error {
		if len(s.results) == 0 || string(l.qid) != s.qid {
			if err := end(); err != nil {
				return err
			}
			s.qid, s.results, s.lines = p.qids.get(l.qid), s.results[:0], s.lines[:0]
			curLine = line
		}
		off := cap(b.buf) - cap(l.doc)
		s.results = append(s.results, Result{DocID: str[off : off+len(l.doc)], Score: l.score})
		s.lines = append(s.lines, int32(line))
		lastTag = l.tag
		return nil
	})
	if err != nil {
		b.err = err
		return
	}
	if lastTag != nil {
		b.tag = p.tags.get(lastTag)
	}
	if len(s.results) == 0 {
		return
	}
	// The last run may go on in the next block: the consumer decides.
	b.heads = append(b.heads, segHead{qid: s.qid, line: curLine})
	if len(b.heads) == 1 {
		b.first = keep()
	} else {
		b.last = keep()
	}
}

// ownIDs returns a copy of rs whose document ids are copied into one new
// string, so that they outlive the buffer they were read from.
func ownIDs(rs []Result) []Result {
	n := 0
	for _, r := range rs {
		n += len(r.DocID)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, r := range rs {
		sb.WriteString(r.DocID)
	}
	all := sb.String()
	out := make([]Result, len(rs))
	at := 0
	for i, r := range rs {
		out[i] = Result{DocID: all[at : at+len(r.DocID)], Score: r.Score}
		at += len(r.DocID)
	}
	return out
}

// ScanQueries reads a run whose lines may come in any order, parsing blocks
// of lines in parallel, and calls fn once per query with its results in
// file order; fn is called from several goroutines at once, in no
// particular order, and the slice and its document ids are only valid
// during the call (as ScanGroups'). The whole run is held packed (16 bytes
// per line plus the document ids) until every line is read. It returns the run tag of the last line. A document
// repeated within a query is an error naming both lines (of the query
// first in byte-wise id order, as ForEachQuery reports it); an error from
// fn stops the walk and is returned.
func ScanQueries(r io.Reader, name string, opt ScanOptions, fn func(qid string, results []Result) error) (string, error) {
	type ref struct {
		b      *packedBlock
		lo, hi int32
	}
	queries := map[string][]ref{}
	var tag string
	consume := func(b *block) error {
		if b.err != nil {
			return b.err
		}
		pb := b.packed
		for _, g := range pb.groups {
			queries[g.qid] = append(queries[g.qid], ref{pb, g.lo, g.hi})
		}
		if b.tag != "" {
			tag = b.tag
		}
		return nil
	}
	newP := func() *parser {
		p := newParser(name, opt.AllowExtraFields)
		p.fnChecks = opt.FnChecksRepeats
		return p
	}
	// Large blocks (8 MiB): every block holds a piece of nearly every
	// query, and each piece costs a reference and a gather step.
	if err := pipeline(r, name, 2*blockSize, opt.Workers, (*parser).queryBlock, newP, consume); err != nil {
		return "", err
	}
	qids := sortedKeys(queries)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(qids))
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newP()
			s := &segment{}
			for {
				mu.Lock()
				j := next
				next++
				mu.Unlock()
				if j >= len(qids) {
					return
				}
				s.qid, s.results, s.lines = qids[j], s.results[:0], s.lines[:0]
				refs := queries[s.qid] // read-only now
				var touch byte
				for _, rf := range refs {
					pb := rf.b
					for k := rf.lo; k < rf.hi; k++ {
						s.results = append(s.results, Result{DocID: pb.docs[pb.recs[k].off:pb.recs[k+1].off], Score: pb.recs[k].score})
					}
					// Load the piece's ids, a byte per cache line, while
					// the loads of its records are under way: fn hashes
					// them next, and they are cold.
					for o := pb.recs[rf.lo].off; o < pb.recs[rf.hi].off; o += 64 {
						touch += pb.docs[o]
					}
				}
				p.touched += touch
				// The line numbers are gathered for the error only.
				errs[j] = p.call(s, fn, func(s *segment) {
					for _, rf := range refs {
						for _, r := range rf.b.recs[rf.lo:rf.hi] {
							s.lines = append(s.lines, r.line)
						}
					}
				})
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	return tag, nil
}

// packedBlock is one block's lines sorted by query id (stable), without
// the text around the document ids: line k's document id is
// docs[recs[k].off:recs[k+1].off], its score recs[k].score. A line's
// fields are in one record, so that packing writes one place of memory a
// line, not one per field (recs has a last record for the end of docs).
type packedBlock struct {
	docs   string
	recs   []packedRec
	groups []queryRange
}

// packedRec is one line of a packedBlock.
type packedRec struct {
	score     float64
	off, line int32
}

// queryRange is one query's lines in a packedBlock: [lo, hi).
type queryRange struct {
	qid    string
	lo, hi int32
}

// queryBlock packs the lines of b by query id, in order of first
// appearance, keeping file order within a query.
func (p *parser) queryBlock(b *block) {
	var qids []string
	var nums []int32 // qidNum of each group
	// Lines and document id bytes of each group, then (after the prefix
	// sums) where its next line and document id go.
	var sizes []groupSize
	recs := p.recs[:0] // reused from block to block, as is docs below
	var lastTag []byte
	// The current group's query id as the bytes of its last line (not
	// qids[cur], a string somewhere in a large slice: a cache miss a line).
	cur, curQID := int32(-1), []byte(nil)
	b.err = p.eachRunLine(b.buf, b.line, func(line int, l runLine) error {
		if cur < 0 || string(l.qid) != string(curQID) {
			num := p.qidNum.lookup(l.qid)
			if num < 0 {
				num = p.qidNum.add(l.qid)
				p.qidStr = append(p.qidStr, p.qids.get(l.qid))
				p.groupOf = append(p.groupOf, 0)
			}
			g := p.groupOf[num] - 1
			if g < 0 {
				g = int32(len(qids))
				p.groupOf[num] = g + 1
				qids = append(qids, p.qidStr[num])
				nums = append(nums, num)
				sizes = append(sizes, groupSize{})
			}
			cur, curQID = g, l.qid
		}
		sz := &sizes[cur]
		sz.lines++
		sz.docs += int32(len(l.doc))
		r := docRec(b.buf, l.doc, line, l.score)
		r.group = cur
		recs = append(recs, r)
		lastTag = l.tag
		return nil
	})
	for _, num := range nums {
		p.groupOf[num] = 0
	}
	if b.err != nil {
		return
	}
	if lastTag != nil {
		b.tag = p.tags.get(lastTag)
	}
	// Counting sort of the lines by group, writing each line where its
	// group's lines go in file order (the reads are in order, the writes
	// scattered: the writes do not wait).
	n := len(recs)
	pb := &packedBlock{recs: make([]packedRec, n+1), groups: make([]queryRange, len(qids))}
	var at, dat int32
	for g, sz := range sizes {
		pb.groups[g] = queryRange{qid: qids[g], lo: at, hi: at + sz.lines}
		sizes[g] = groupSize{lines: at, docs: dat}
		at += sz.lines
		dat += sz.docs
	}
	p.recs = recs
	// The packed ids are the block's for good: a string over them
	// without a copy (nothing writes to docs after the loop below).
	docs := make([]byte, dat)
	for _, r := range recs {
		pos := &sizes[r.group]
		k, d := pos.lines, pos.docs
		pos.lines++
		pos.docs += int32(copyID(docs[d:], b.buf[r.off:r.end]))
		pb.recs[k] = packedRec{score: r.score, off: d, line: r.line}
	}
	pb.recs[n].off = dat
	if dat > 0 {
		pb.docs = unsafe.String(&docs[0], len(docs))
	}
	b.packed = pb
}

// copyID is copy for a short id: two overlapping words (of 8 or 4
// bytes) for one of 4 to 16 bytes, which writes only dst[:len(src)] as
// copy does, without a call to memmove.
func copyID(dst, src []byte) int {
	switch n := len(src); {
	case n > 16 || len(dst) < n:
		return copy(dst, src)
	case n >= 8:
		a, b := binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[n-8:])
		binary.LittleEndian.PutUint64(dst, a)
		binary.LittleEndian.PutUint64(dst[n-8:], b)
		return n
	case n >= 4:
		a, b := binary.LittleEndian.Uint32(src), binary.LittleEndian.Uint32(src[n-4:])
		binary.LittleEndian.PutUint32(dst, a)
		binary.LittleEndian.PutUint32(dst[n-4:], b)
		return n
	}
	return copy(dst, src)
}

// groupSize counts a group's lines and document id bytes in queryBlock.
type groupSize struct{ lines, docs int32 }
