package bm25

/*
#cgo LDFLAGS: -lm
#include <math.h>
static double c_log(double x) { return log(x); }
*/
import "C"

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
)

// memIndex is the whole FTS5 index of a corpus decoded into memory, the
// store staying SQLite: the postings (per term, per row, instances per
// column) are read from the segment b-tree pages of the fts_data table and
// the row sizes from fts_docsize, once per open. With them, Search computes
// FTS5's bm25() itself, with FTS5's formula and the same floating-point
// operations in the same order (and the C library's log, which FTS5 calls),
// so that scores are bit-identical to SearchFTS5's.
type memIndex struct {
	nRow    int64
	avgdl   float64
	docLen  []float64 // xColumnSize(-1) of row i+1
	norm    []float64 // k1·(1-b+b·D/avgdl) of row i+1
	terms   map[string]termPostings
	weights [3]float64
}

// termPostings are one term's rows with the parts of FTS5's formula that
// do not depend on the query, computed once with FTS5's operations.
type termPostings struct {
	rows []int32   // rowid - 1, ascending
	f    []float64 // the weighted frequency f(q,D) FTS5 sums from xInst
	fk   []float64 // f·(k1+1)
}

var errLayout = errors.New("unsupported FTS5 index layout")

// sqliteVarint decodes SQLite's varint (big-endian, 7 bits a byte, the
// ninth byte whole) at b[i:], returning the value and the next offset, or
// -1 when b ends inside it.
func sqliteVarint(b []byte, i int) (uint64, int) {
	if i < 0 {
		return 0, -1
	}
	var v uint64
	for n := 0; n < 9; n++ {
		if i >= len(b) {
			return 0, -1
		}
		c := b[i]
		i++
		if n == 8 {
			return v<<8 | uint64(c), i
		}
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i
		}
	}
	return v, i
}

// loadMemIndex decodes the index of db (columns symbol, path, body) and
// checks it against the row sizes FTS5 records: every row's instances per
// column must add up to its recorded column sizes. Any surprise in the
// layout is an error wrapping errLayout; the caller then keeps using SQL.
func loadMemIndex(db *sql.DB, docs int, weights [3]float64) (*memIndex, error) {
	if docs == 0 {
		return nil, fmt.Errorf("%w: no rows", errLayout)
	}
	m := &memIndex{terms: map[string]termPostings{}, weights: weights, docLen: make([]float64, docs)}
	// Averages record: nRow, then the total size of each column.
	var avg []byte
	if err := db.QueryRow(`SELECT block FROM fts_data WHERE id = 1`).Scan(&avg); err != nil {
		return nil, fmt.Errorf("averages record: %w", err)
	}
	nRow, i := sqliteVarint(avg, 0)
	var nToken uint64
	for c := 0; c < 3; c++ {
		var t uint64
		if t, i = sqliteVarint(avg, i); i < 0 {
			return nil, fmt.Errorf("%w: averages record", errLayout)
		}
		nToken += t
	}
	if int(nRow) != docs {
		return nil, fmt.Errorf("%w: %d rows recorded, %d docs", errLayout, nRow, docs)
	}
	m.nRow = int64(nRow)
	m.avgdl = float64(int64(nToken)) / float64(int64(nRow))

	sizes := make([][3]uint32, docs)
	rows, err := db.Query(`SELECT id, sz FROM fts_docsize ORDER BY id`)
	if err != nil {
		return nil, err
	}
	n := 0
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			rows.Close()
			return nil, err
		}
		if id < 1 || id > int64(docs) {
			rows.Close()
			return nil, fmt.Errorf("%w: docsize row %d", errLayout, id)
		}
		j, total := 0, uint64(0)
		for c := 0; c < 3; c++ {
			var v uint64
			if v, j = sqliteVarint(sz, j); j < 0 {
				rows.Close()
				return nil, fmt.Errorf("%w: docsize of row %d", errLayout, id)
			}
			sizes[id-1][c] = uint32(v)
			total += v
		}
		m.docLen[id-1] = float64(int(total))
		n++
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if n != docs {
		return nil, fmt.Errorf("%w: %d docsize rows for %d docs", errLayout, n, docs)
	}

	d := &decoder{weights: weights, got: make([][3]uint32, docs), cur: -1}
	rows, err = db.Query(`SELECT id, block FROM fts_data WHERE id > 10 ORDER BY id`)
	if err != nil {
		return nil, err
	}
	seg, want := int64(-1), int64(1)
	for rows.Next() {
		var id int64
		var block []byte
		if err := rows.Scan(&id, &block); err != nil {
			rows.Close()
			return nil, err
		}
		segid, dlidx, pgno := id>>37, (id>>36)&1, id&0x7fffffff
		if dlidx == 1 {
			continue // doclist index: only needed to seek
		}
		if segid >= 1<<16 || (seg >= 0 && segid != seg) || (id>>31)&31 != 0 {
			rows.Close()
			return nil, fmt.Errorf("%w: more than one segment (or tombstones)", errLayout)
		}
		seg = segid
		if pgno != want {
			rows.Close()
			return nil, fmt.Errorf("%w: leaf %d after %d", errLayout, pgno, want-1)
		}
		want++
		if err := d.page(block); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%w: segment %d leaf %d: %v", errLayout, segid, pgno, err)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if d.pending != 0 {
		return nil, fmt.Errorf("%w: the last position list is cut short", errLayout)
	}
	// Every instance belongs to exactly one (term, row): the rows' column
	// sizes are the sums of their instances.
	got := d.got
	// f·(k1+1) of every posting; each term's postings are slices of the
	// decoder's arrays, one allocation each.
	kp1 := k1 + 1.0
	fk := make([]float64, len(d.f))
	for i, f := range d.f {
		fk[i] = f * kp1
	}
	m.terms = make(map[string]termPostings, len(d.terms))
	for i, t := range d.terms {
		end := len(d.rows)
		if i+1 < len(d.terms) {
			end = d.terms[i+1].start
		}
		// Terms of the main index carry the prefix byte '0' (prefix indexes,
		// which this schema does not have, '1'…).
		if len(t.term) == 0 || t.term[0] != '0' {
			return nil, fmt.Errorf("%w: term %q of a prefix index", errLayout, t.term)
		}
		m.terms[t.term[1:]] = termPostings{rows: d.rows[t.start:end:end], f: d.f[t.start:end:end], fk: fk[t.start:end:end]}
	}
	for r := range got {
		if got[r] != sizes[r] {
			return nil, fmt.Errorf("%w: row %d: decoded column sizes %v, recorded %v", errLayout, r+1, got[r], sizes[r])
		}
	}
	omb := 1 - bParam
	m.norm = make([]float64, docs)
	for r, D := range m.docLen {
		m.norm[r] = k1 * (omb + bParam*D/m.avgdl)
	}
	return m, nil
}

// decoder walks the leaf pages of one segment in order. The postings of
// every term go to rows and f, term after term (terms in index order): f
// adds each instance's column weight in FTS5's xInst order (columns in
// order, as position lists are), as fts5Bm25Function does, so it is the
// weighted frequency that FTS5 sums, computed with the same additions.
type decoder struct {
	weights [3]float64
	got     [][3]uint32 // decoded instances per row and column
	rows    []int32     // rowid - 1 of each posting
	f       []float64   // weighted frequency of each posting
	terms   []termStart
	term    []byte
	cur     int // the current posting (index in rows), -1 before any term
	rowid   int64
	pending int  // bytes of the current position list still to come
	col     int  // column of the current position list
	colNext bool // the next varint is a column number
}

// termStart is a term and the index of its first posting.
type termStart struct {
	term  string
	start int
}

// page decodes one leaf page (format: the FTS5 DATA FORMAT comment of
// fts5_index.c).
func (d *decoder) page(b []byte) error {
	if len(b) < 4 {
		return errors.New("short page")
	}
	rowidOff := int(binary.BigEndian.Uint16(b[0:2]))
	szLeaf := int(binary.BigEndian.Uint16(b[2:4]))
	if szLeaf > len(b) || szLeaf < 4 {
		return errors.New("bad leaf size")
	}
	var termOffs []int
	for i, off := szLeaf, 0; i < len(b); {
		var v uint64
		if v, i = sqliteVarint(b, i); i < 0 {
			return errors.New("bad page footer")
		}
		off += int(v)
		termOffs = append(termOffs, off)
	}
	firstTerm := szLeaf
	if len(termOffs) > 0 {
		firstTerm = termOffs[0]
	}
	pos := 4
	if d.pending > 0 {
		n := min(d.pending, firstTerm-pos)
		if rowidOff != 0 {
			n = min(d.pending, rowidOff-pos)
		}
		if err := d.positions(b[pos : pos+n]); err != nil {
			return err
		}
		pos += n
		d.pending -= n
	}
	if rowidOff != 0 {
		if d.pending != 0 || pos != rowidOff || d.cur < 0 {
			return fmt.Errorf("rowid at %d, position list at %d", rowidOff, pos)
		}
		var err error
		if pos, err = d.doclist(b, pos, firstTerm, true); err != nil {
			return err
		}
	}
	if len(termOffs) > 0 && d.pending == 0 && pos != firstTerm {
		return fmt.Errorf("term at %d, data up to %d", firstTerm, pos)
	}
	for j, off := range termOffs {
		if d.pending != 0 {
			return errors.New("term inside a position list")
		}
		pos = off
		var nPrefix, nNew uint64
		if j > 0 {
			if nPrefix, pos = sqliteVarint(b, pos); pos < 0 {
				return errors.New("bad term")
			}
		}
		if nNew, pos = sqliteVarint(b, pos); pos < 0 || int(nPrefix) > len(d.term) || pos+int(nNew) > szLeaf {
			return errors.New("bad term")
		}
		d.term = append(d.term[:nPrefix], b[pos:pos+int(nNew)]...)
		pos += int(nNew)
		t := string(d.term)
		if n := len(d.terms); n > 0 && t <= d.terms[n-1].term {
			return fmt.Errorf("term %q after %q", t, d.terms[n-1].term)
		}
		d.terms = append(d.terms, termStart{t, len(d.rows)})
		end := szLeaf
		if j+1 < len(termOffs) {
			end = termOffs[j+1]
		}
		var err error
		if pos, err = d.doclist(b, pos, end, true); err != nil {
			return err
		}
		if d.pending == 0 && pos != end {
			return fmt.Errorf("doclist ends at %d, next at %d", pos, end)
		}
	}
	return nil
}

// doclist decodes rowids and position lists of the current term in
// b[pos:end]; the first rowid is absolute when abs. A position list that
// runs past end leaves d.pending set.
func (d *decoder) doclist(b []byte, pos, end int, abs bool) (int, error) {
	for first := true; pos < end; first = false {
		v, p := sqliteVarint(b[:end], pos)
		if p < 0 {
			return 0, errors.New("bad rowid")
		}
		if first && abs {
			d.rowid = int64(v)
		} else {
			if v == 0 {
				return 0, errors.New("zero rowid delta")
			}
			d.rowid += int64(v)
		}
		sz, p2 := sqliteVarint(b[:end], p)
		if p2 < 0 {
			return 0, errors.New("bad position list size")
		}
		if sz&1 != 0 {
			return 0, errors.New("delete flag")
		}
		pos = p2
		if d.rowid < 1 || d.rowid > int64(len(d.got)) {
			return 0, fmt.Errorf("rowid %d", d.rowid)
		}
		d.cur = len(d.rows)
		d.rows = append(d.rows, int32(d.rowid-1))
		d.f = append(d.f, 0)
		d.col, d.colNext = 0, false
		n := int(sz >> 1)
		take := min(n, end-pos)
		if err := d.positions(b[pos : pos+take]); err != nil {
			return 0, err
		}
		pos += take
		if take < n {
			d.pending = n - take
			return pos, nil
		}
	}
	return pos, nil
}

// positions counts the instances of one piece of a position list into the
// current posting.
func (d *decoder) positions(b []byte) error {
	got := &d.got[d.rows[d.cur]]
	f := d.f[d.cur]
	for i := 0; i < len(b); {
		v, p := sqliteVarint(b, i)
		if p < 0 {
			return errors.New("varint split across pages")
		}
		i = p
		switch {
		case d.colNext:
			if v > 2 {
				return fmt.Errorf("column %d", v)
			}
			d.col, d.colNext = int(v), false
		case v == 1:
			d.colNext = true
		default:
			got[d.col]++
			f += d.weights[d.col]
		}
	}
	d.f[d.cur] = f
	return nil
}

// bm25 constants, as variables so that k1+1 and 1-b are computed in
// float64 at run time as FTS5's C does, not folded exactly.
var k1, bParam = 1.2, 0.75

// idf is FTS5's IDF of a phrase matched by nHit of nRow rows.
func idf(nRow, nHit int64) float64 {
	v := float64(C.c_log(C.double(float64(nRow-nHit)+0.5) / C.double(float64(nHit)+0.5)))
	if v <= 0 {
		v = 1e-6
	}
	return v
}

// score adds phrase p's share of bm25() to acc for every row it occurs in,
// idf·(f·(k1+1)) / (f + k1·(1-b+b·D/avgdl)), marking rows first seen.
func (m *memIndex) score(p termPostings, acc []float64, seen []bool, touched []int32) []int32 {
	if len(p.rows) == 0 {
		return touched
	}
	idfv := idf(m.nRow, int64(len(p.rows)))
	f, fk := p.f[:len(p.rows)], p.fk[:len(p.rows)]
	for i, r := range p.rows {
		if !seen[r] {
			seen[r] = true
			touched = append(touched, r)
		}
		acc[r] += idfv * (fk[i] / (f[i] + m.norm[r]))
	}
	return touched
}
