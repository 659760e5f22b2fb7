package trecfmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
)

// RunRecord is one line of a TREC run.
type RunRecord struct {
	QID, Iter, DocID string
	Rank             int
	Score            float64
	Tag              string
}

// RunReader reads a TREC run one line at a time, in the shape of
// bufio.Scanner:
//
//	rr := trecfmt.NewRunReader(f, path)
//	for rr.Scan() {
//		rec := rr.Record()
//		…
//	}
//	if err := rr.Err(); err != nil { … }
//
// A line must have six fields: qid, iter (conventionally "Q0"), docno, an
// integer rank, a finite score and a run tag. RunReader checks each line on
// its own; GroupReader and ReadRun also reject a document repeated within a
// query.
type RunReader struct {
	// AllowExtraFields accepts lines with more than six fields and ignores
	// the extra ones, as trec_eval does. By default they are an error.
	AllowExtraFields bool

	lr             *lineReader
	qid, iter, tag lastInterner
	rec            RunRecord
	docID          []byte // raw docno of the current line, valid until the next line
}

// NewRunReader returns a reader of the run in r; name is the file name used
// in errors.
func NewRunReader(r io.Reader, name string) *RunReader {
	in := make(interner)
	return &RunReader{
		lr:   newLineReader(r, name),
		qid:  lastInterner{in: in},
		iter: lastInterner{in: in},
		tag:  lastInterner{in: in},
	}
}

// Scan advances to the next run line. It returns false at the end of the
// input or at the first error, which Err then returns.
func (rr *RunReader) Scan() bool {
	if !rr.next() {
		return false
	}
	rr.rec.DocID = string(rr.docID)
	return true
}

// next parses the next line into rr.rec except DocID, which stays in
// rr.docID.
func (rr *RunReader) next() bool {
	lr := rr.lr
	if !lr.next() {
		return false
	}
	f := lr.fields
	if len(f) < 6 || (len(f) > 6 && !rr.AllowExtraFields) {
		lr.err = syntaxErrorf(lr.name, lr.line, "%d fields, want 6 (qid Q0 docno rank score tag)", len(f))
		return false
	}
	rank, err := strconv.Atoi(string(f[3]))
	if err != nil {
		lr.err = syntaxErrorf(lr.name, lr.line, "rank %q is not an integer", f[3])
		return false
	}
	score, err := parseScore(f[4])
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		lr.err = syntaxErrorf(lr.name, lr.line, "score %q is not a number", f[4])
		return false
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		lr.err = syntaxErrorf(lr.name, lr.line, "score %q is not finite", f[4])
		return false
	}
	rr.rec = RunRecord{
		QID:   rr.qid.get(f[0]),
		Iter:  rr.iter.get(f[1]),
		Rank:  rank,
		Score: score,
		Tag:   rr.tag.get(f[5]),
	}
	rr.docID = f[2]
	return true
}

// Record returns the line read by the last Scan.
func (rr *RunReader) Record() RunRecord { return rr.rec }

// Line returns the line number of the last record.
func (rr *RunReader) Line() int { return rr.lr.line }

// Err returns the first error met, or nil at a clean end of input.
func (rr *RunReader) Err() error { return rr.lr.err }

// ErrNotGrouped is wrapped by GroupReader's error when a query's lines do
// not form one contiguous block.
var ErrNotGrouped = errors.New("run is not grouped by query")

// GroupReader reads a TREC run one query at a time: each Scan yields the
// results of the next contiguous block of lines with the same query id.
// A document id repeated within a query is an error naming both lines; a
// query id that comes back after another query's block is an error wrapping
// ErrNotGrouped (read such a run with ReadRun instead).
type GroupReader struct {
	rr *RunReader

	qid     string
	results []Result
	lines   []int32
	offs    []int32
	arena   []byte
	dups    map[string]int32
	done    map[string]bool
	tag     string
	err     error

	// The first line of the next block, read while looking for the end of
	// the current one.
	held      bool
	heldQID   string
	heldDoc   []byte
	heldScore float64
	heldLine  int32
	heldTag   string
}

// NewGroupReader returns a reader of the run in r; name is the file name
// used in errors.
func NewGroupReader(r io.Reader, name string) *GroupReader {
	return &GroupReader{rr: NewRunReader(r, name), dups: make(map[string]int32), done: make(map[string]bool)}
}

// SetAllowExtraFields sets RunReader.AllowExtraFields of the underlying
// reader; call it before the first Scan.
func (g *GroupReader) SetAllowExtraFields(ok bool) { g.rr.AllowExtraFields = ok }

// Scan advances to the next query. It returns false at the end of the input
// or at the first error, which Err then returns.
func (g *GroupReader) Scan() bool {
	if g.err != nil {
		return false
	}
	g.arena = g.arena[:0]
	g.offs = g.offs[:0]
	g.results = g.results[:0]
	g.lines = g.lines[:0]
	switch {
	case g.held:
		g.held = false
		g.qid = g.heldQID
		g.add(g.heldDoc, g.heldScore, g.heldLine, g.heldTag)
	case g.rr.next():
		g.qid = g.rr.rec.QID
		g.addCurrent()
	default:
		g.err = g.rr.Err()
		return false
	}
	for g.rr.next() {
		if g.rr.rec.QID != g.qid {
			g.held = true
			g.heldQID = g.rr.rec.QID
			g.heldDoc = append(g.heldDoc[:0], g.rr.docID...)
			g.heldScore = g.rr.rec.Score
			g.heldLine = int32(g.rr.lr.line)
			g.heldTag = g.rr.rec.Tag
			break
		}
		g.addCurrent()
	}
	if !g.held {
		if err := g.rr.Err(); err != nil {
			g.err = err
			return false
		}
	}
	if g.done[g.qid] {
		g.err = &SyntaxError{File: g.rr.lr.name, Line: int(g.lines[0]), Err: ErrNotGrouped,
			Msg: fmt.Sprintf("query %q continues after other queries: %v", g.qid, ErrNotGrouped)}
		return false
	}
	g.done[g.qid] = true
	g.finish()
	return g.err == nil
}

func (g *GroupReader) addCurrent() {
	g.add(g.rr.docID, g.rr.rec.Score, int32(g.rr.lr.line), g.rr.rec.Tag)
}

// add appends one line to the block being built.
func (g *GroupReader) add(doc []byte, score float64, line int32, tag string) {
	g.offs = append(g.offs, int32(len(g.arena)))
	g.arena = append(g.arena, doc...)
	g.results = append(g.results, Result{Score: score})
	g.lines = append(g.lines, line)
	g.tag = tag
}

// finish turns the arena into the block's document id strings (one
// allocation per query) and checks for repeated documents.
func (g *GroupReader) finish() {
	all := string(g.arena)
	n := len(g.results)
	clear(g.dups)
	for i := range n {
		end := len(all)
		if i+1 < n {
			end = int(g.offs[i+1])
		}
		d := all[g.offs[i]:end]
		g.results[i].DocID = d
		if first, dup := g.dups[d]; dup {
			g.err = syntaxErrorf(g.rr.lr.name, int(g.lines[i]),
				"document %q retrieved twice for query %q (first on line %d)", d, g.qid, first)
			return
		}
		g.dups[d] = g.lines[i]
	}
}

// QID returns the query id of the current block.
func (g *GroupReader) QID() string { return g.qid }

// Results returns the current query's results in file order. The slice is
// reused by the next Scan; the strings in it are not.
func (g *GroupReader) Results() []Result { return g.results }

// Tag returns the run tag of the last line read (trec_eval reports the last
// line's tag as the run id).
func (g *GroupReader) Tag() string { return g.tag }

// Err returns the first error met, or nil at a clean end of input.
func (g *GroupReader) Err() error { return g.err }

// ReadRun reads a whole TREC run into memory, in any line order: query id →
// results in file order. It also returns the run tag of the last line (""
// for an empty run). A document repeated within a query is an error naming
// both lines. With allowExtra, lines with more than six fields are accepted
// as trec_eval accepts them.
func ReadRun(r io.Reader, name string, allowExtra bool) (Run, string, error) {
	run := make(Run)
	tag, err := ForEachQuery(r, name, allowExtra, func(qid string, rs []Result) error {
		run[qid] = slices.Clone(rs)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return run, tag, nil
}

// packedQuery holds one query's lines compactly: document ids back to back
// in one byte slice, no allocation per line.
type packedQuery struct {
	arena  []byte
	offs   []int32
	scores []float64
	lines  []int32
}

// ForEachQuery reads a run whose lines may come in any order and calls fn
// once per query, in query id order (byte-wise), with the query's results in
// file order; the slice is reused after fn returns. The whole run is held
// packed (16 bytes per line plus the document ids) until the query's turn
// comes, which is what a run that is not grouped by query needs; a grouped
// run streams through GroupReader in a few queries' worth of memory. It
// returns the run tag of the last line. A document repeated within a query
// is an error naming both lines; an error from fn stops the walk and is
// returned.
func ForEachQuery(r io.Reader, name string, allowExtra bool, fn func(qid string, results []Result) error) (string, error) {
	rr := NewRunReader(r, name)
	rr.AllowExtraFields = allowExtra
	queries := make(map[string]*packedQuery)
	var tag string
	var cur *packedQuery
	curQID := ""
	for rr.next() {
		if cur == nil || rr.rec.QID != curQID {
			curQID = rr.rec.QID
			cur = queries[curQID]
			if cur == nil {
				cur = &packedQuery{}
				queries[curQID] = cur
			}
		}
		cur.offs = append(cur.offs, int32(len(cur.arena)))
		cur.arena = append(cur.arena, rr.docID...)
		cur.scores = append(cur.scores, rr.rec.Score)
		cur.lines = append(cur.lines, int32(rr.lr.line))
		tag = rr.rec.Tag
	}
	if err := rr.Err(); err != nil {
		return "", err
	}
	var results []Result
	dups := make(map[string]int32)
	for _, qid := range sortedKeys(queries) {
		q := queries[qid]
		delete(queries, qid) // the packed lines can go once handed over
		all := string(q.arena)
		results = results[:0]
		clear(dups)
		for i, off := range q.offs {
			end := len(all)
			if i+1 < len(q.offs) {
				end = int(q.offs[i+1])
			}
			d := all[off:end]
			if first, dup := dups[d]; dup {
				return "", syntaxErrorf(name, int(q.lines[i]),
					"document %q retrieved twice for query %q (first on line %d)", d, qid, first)
			}
			dups[d] = q.lines[i]
			results = append(results, Result{DocID: d, Score: q.scores[i]})
		}
		if err := fn(qid, results); err != nil {
			return "", err
		}
	}
	return tag, nil
}

// ReadRunFile reads the TREC run at path (see ReadRun).
func ReadRunFile(path string, allowExtra bool) (Run, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	return ReadRun(f, path, allowExtra)
}

// WriteRun writes run in TREC format with the given tag: queries ordered by
// id, each query's results ranked as trec_eval ranks them (sortRanked)
// with ranks from 1, scores in the shortest form that reads back exactly.
// Ids or a tag that are empty or contain white space, and scores that are
// NaN or infinite, are an error.
func WriteRun(w io.Writer, run Run, tag string) error {
	if !validID(tag) {
		return fmt.Errorf("run: invalid tag %q", tag)
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, qid := range sortedKeys(run) {
		if !validQID(qid) {
			return fmt.Errorf("run: invalid query id %q", qid)
		}
		rs := slices.Clone(run[qid])
		sortRanked(rs)
		for i, r := range rs {
			if !validID(r.DocID) {
				return fmt.Errorf("run: query %q: invalid document id %q", qid, r.DocID)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				return fmt.Errorf("run: query %q: document %q: score %v is not finite", qid, r.DocID, r.Score)
			}
			buf = append(buf[:0], qid...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, r.DocID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, r.Score, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteRunFile writes run to path atomically (see WriteRun).
func WriteRunFile(path string, run Run, tag string) error {
	return atomicfile.Write(path, func(f io.Writer) error { return WriteRun(f, run, tag) })
}

// plainDecimal reads the score at b[i:]: an optional '-', digits and an
// optional '.' with digits, at most 15 digits in all and at least one on
// each side of a point, ending at or before n. It returns the value —
// exactly strconv.ParseFloat's, since the digits and the power of ten are
// both exact in a float64 — and where the number ends; ok is false for
// anything else (the general path decides).
func plainDecimal(b []byte, i, n int) (v float64, end int, ok bool) {
	neg := i < n && b[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	d := i
	for i < n && b[i]-'0' <= 9 {
		mant = mant*10 + uint64(b[i]-'0')
		i++
	}
	digits, frac := i-d, -1
	if i < n && b[i] == '.' {
		i++
		d = i
		for i < n && b[i]-'0' <= 9 {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
		frac = i - d
		digits += frac
	}
	if digits == 0 || digits > 15 || frac == 0 {
		return 0, i, false
	}
	v = float64(mant)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseScore parses a run score. Plain decimals of at most 15 digits (what
// search systems write) take a fast path that gives exactly
// strconv.ParseFloat's result: the digits form an integer below 2^53 and
// the power of ten is exact, so the one IEEE division is correctly rounded,
// as ParseFloat is. Anything else goes to strconv.ParseFloat.
func parseScore(b []byte) (float64, error) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return strconv.ParseFloat(string(b), 64)
		}
	}
	if digits == 0 || digits > 15 || frac == 0 {
		return strconv.ParseFloat(string(b), 64)
	}
	v := float64(mant)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, nil
}
