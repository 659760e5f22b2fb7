package trecfmt

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/retrievalbench/retrievalbench/internal/strhash"
)

// Judgments is qrels in a compact form for millions of judgments: query i,
// QIDs[i], judged Docs[i][k] with grade Grades[i][k], queries in the order
// of their first line. Per judgment it costs a string header (the ids are
// substrings of the file's contents, held once) and an int32; a Qrels map
// costs several times that in table slots and growth. It has the fields of
// metrics.Judgments, so it converts to it without this package knowing of
// metrics.
type Judgments struct {
	QIDs   []string
	Docs   [][]string
	Grades [][]int32
}

// ReadJudgmentsFile reads the TREC qrels file at path as ReadQrelsFile does,
// into the compact form. The file is read whole and parsed in parts on
// every core; any error reads it again with ReadQrels, whose error (file,
// line, problem) it returns.
func ReadJudgmentsFile(path string) (*Judgments, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readJudgmentsParallel(data, path, runtime.GOMAXPROCS(0))
}

// judgmentsPart is what readJudgmentsPart makes of one part: its lines'
// documents and grades, and the runs of consecutive lines of one query.
type judgmentsPart struct {
	docs   []string
	grades []int32
	segs   []qrelsRun
	ok     bool
}

// qrelsRun is a run of consecutive lines of one query: docs[lo:hi].
type qrelsRun struct {
	qid    string
	lo, hi int
	// sorted: the documents are in strictly increasing order, so none is
	// judged twice (qrels are mostly written so).
	sorted bool
}

// readJudgmentsParallel reads data (see ReadQrels) in up to parts pieces
// cut at line ends, one goroutine each, and joins the pieces of each
// query. data must not change afterwards: the ids are substrings of it.
func readJudgmentsParallel(data []byte, name string, parts int) (*Judgments, error) {
	if len(data) == 0 {
		return &Judgments{}, nil
	}
	// The ids are substrings of the file's contents without a copy: data
	// is not written to again.
	all := unsafe.String(&data[0], len(data))
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
	again := func() (*Judgments, error) {
		q, err := ReadQrels(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		return judgmentsOf(q, name)
	}
	for _, p := range got {
		if !p.ok {
			return again()
		}
	}
	j := &Judgments{}
	index := make(map[string]int)
	// A query whose documents are not known to be distinct: in pieces, or
	// not in increasing order.
	var check []int
	for _, p := range got {
		for _, s := range p.segs {
			docs, grades := p.docs[s.lo:s.hi:s.hi], p.grades[s.lo:s.hi:s.hi]
			i, seen := index[s.qid]
			if !seen {
				i = len(j.QIDs)
				index[s.qid] = i
				j.QIDs = append(j.QIDs, s.qid)
				j.Docs = append(j.Docs, docs)
				j.Grades = append(j.Grades, grades)
				if !s.sorted {
					check = append(check, i)
				}
				continue
			}
			// Appending to a full slice copies the query's judgments.
			j.Docs[i] = append(j.Docs[i], docs...)
			j.Grades[i] = append(j.Grades[i], grades...)
			check = append(check, i)
		}
	}
	var set idSet
	for _, i := range check {
		if !set.distinct(j.Docs[i]) {
			return again()
		}
	}
	return j, nil
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

// readJudgmentsPart reads the qrels lines of s as ReadQrels does, with the
// ids substrings of s. ok is false at anything ReadQrels reports as an
// error (the caller reads again with ReadQrels for the error and its line),
// and at a document judged twice in one run of lines of its query.
func readJudgmentsPart(s string) (p judgmentsPart) {
	n := strings.Count(s, "\n") + 1
	p.docs, p.grades = make([]string, 0, n), make([]int32, 0, n)
	var f [5]string
	cur := -1 // index into p.segs of the current query's run
	for len(s) > 0 {
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
		var grade int
		if g := f[3]; len(g) == 1 && '0' <= g[0] && g[0] <= '9' {
			grade = int(g[0] - '0')
		} else {
			v, err := strconv.Atoi(g)
			if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
				return p
			}
			grade = v
		}
		if cur < 0 || f[0] != p.segs[cur].qid {
			p.segs = append(p.segs, qrelsRun{qid: f[0], lo: len(p.docs), hi: len(p.docs), sorted: true})
			cur = len(p.segs) - 1
		} else if sg := &p.segs[cur]; sg.sorted && f[2] <= p.docs[len(p.docs)-1] {
			sg.sorted = false
		}
		p.docs = append(p.docs, f[2])
		p.grades = append(p.grades, int32(grade))
		p.segs[cur].hi = len(p.docs)
	}
	p.ok = true
	return p
}

// judgmentsOf converts qrels (ReadQrels' result) to the compact form; name
// is the file, for the error of a grade that does not fit 32 bits.
func judgmentsOf(q Qrels, name string) (*Judgments, error) {
	j := &Judgments{}
	for _, qid := range sortedKeys(q) {
		docs := sortedKeys(q[qid])
		grades := make([]int32, len(docs))
		for k, d := range docs {
			g := q[qid][d]
			if g < math.MinInt32 || g > math.MaxInt32 {
				return nil, fmt.Errorf("%s: query %q, document %q: grade %d does not fit 32 bits", name, qid, d, g)
			}
			grades[k] = int32(g)
		}
		j.QIDs = append(j.QIDs, qid)
		j.Docs = append(j.Docs, docs)
		j.Grades = append(j.Grades, grades)
	}
	return j, nil
}

// idSet is an open-addressing set of ids, reused from query to query.
type idSet struct {
	seed  uint64
	slots []int32 // index+1 into the ids being checked; 0 is empty
}

// distinct reports whether no id of ids appears twice.
func (s *idSet) distinct(ids []string) bool {
	size := 16
	for size < 2*len(ids) {
		size *= 2
	}
	if len(s.slots) < size {
		s.slots = make([]int32, size)
		s.seed = strhash.NewSeed()
	}
	slots := s.slots[:size]
	clear(slots)
	mask := uint64(size - 1)
	for k, id := range ids {
		h := strhash.String(id, s.seed) & mask
		for ; slots[h] != 0; h = (h + 1) & mask {
			if ids[slots[h]-1] == id {
				return false
			}
		}
		slots[h] = int32(k + 1)
	}
	return true
}
