package trecfmt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
)

// ReadQrels reads TREC qrels ("qid iter docno rel", whitespace separated,
// the iter column ignored) from r; name is the file name used in errors.
// Grades are integers and may be negative (trec_eval reads a negative grade
// as "in the pool but not judged"). A line with other than four fields, a
// non-integer grade, or a document judged twice for one query is an error.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	lr := newLineReader(r, name)
	qids := make(interner)
	qrels := make(Qrels)
	var qid string
	var docs map[string]int
	for lr.next() {
		f := lr.fields
		if len(f) != 4 {
			return nil, syntaxErrorf(name, lr.line, "%d fields, want 4 (qid iter docno rel)", len(f))
		}
		grade, err := strconv.Atoi(string(f[3]))
		if err != nil {
			return nil, syntaxErrorf(name, lr.line, "grade %q is not an integer", f[3])
		}
		// A query's judgments are mostly on consecutive lines.
		if docs == nil || string(f[0]) != qid {
			qid = qids.get(f[0])
			docs = qrels[qid]
			if docs == nil {
				docs = make(map[string]int)
				qrels[qid] = docs
			}
		}
		n := len(docs)
		if docs[string(f[2])] = grade; len(docs) == n {
			return nil, syntaxErrorf(name, lr.line, "document %q judged twice for query %q", f[2], qid)
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}
	return qrels, nil
}

// ReadQrelsFile reads the TREC qrels file at path (see ReadQrels). A large
// file is read in parts on every core; the result, and the error, are
// ReadQrels' own.
func ReadQrelsFile(path string) (Qrels, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readQrelsParallel(data, path, runtime.GOMAXPROCS(0))
}

// minQrelsPart is the smallest part readQrelsParallel gives a goroutine; a
// variable so that tests can cut small inputs.
var minQrelsPart = 1 << 20

// readQrelsParallel reads data (see ReadQrels) in up to parts pieces cut
// at line ends, one goroutine each (readQrelsPart), and merges them. Any
// error, in a part or a document judged in two parts, reads data again
// from the start with ReadQrels, which reports the first error with its
// line.
func readQrelsParallel(data []byte, name string, parts int) (Qrels, error) {
	all := string(data) // the ids are substrings: one allocation in all
	cuts := cutLines(all, parts)
	got := make([]Qrels, len(cuts))
	oks := make([]bool, len(cuts))
	var wg sync.WaitGroup
	start := 0
	for i, end := range cuts {
		wg.Add(1)
		go func(i int, part string) {
			defer wg.Done()
			got[i], oks[i] = readQrelsPart(part)
		}(i, all[start:end])
		start = end
	}
	wg.Wait()
	again := func() (Qrels, error) { return ReadQrels(bytes.NewReader(data), name) }
	if len(got) == 0 {
		return again()
	}
	for _, ok := range oks {
		if !ok {
			return again()
		}
	}
	qrels := got[0]
	for _, q := range got[1:] {
		for qid, docs := range q {
			have, ok := qrels[qid]
			if !ok {
				qrels[qid] = docs
				continue
			}
			for doc, g := range docs {
				n := len(have)
				if have[doc] = g; len(have) == n {
					return again()
				}
			}
		}
	}
	return qrels, nil
}

// readQrelsPart reads the qrels lines of s as ReadQrels does, with the ids
// substrings of s. ok is false at anything ReadQrels reports as an error
// (the caller reads again with ReadQrels for the error and its line).
func readQrelsPart(s string) (qrels Qrels, ok bool) {
	qrels = make(Qrels)
	var qid string
	var docs map[string]int
	var f [5]string
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if len(line) >= maxLine {
			return nil, false
		}
		n, ok := splitInto(line, f[:])
		if !ok {
			return nil, false
		}
		if n == 0 || f[0][0] == '#' {
			continue
		}
		if n != 4 {
			return nil, false
		}
		grade, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, false
		}
		if docs == nil || f[0] != qid {
			qid = f[0]
			prev := len(docs)
			if docs = qrels[qid]; docs == nil {
				// Queries have mostly as many judgments as the one before.
				docs = make(map[string]int, prev)
				qrels[qid] = docs
			}
		}
		before := len(docs)
		if docs[f[2]] = grade; len(docs) == before {
			return nil, false
		}
	}
	return qrels, true
}

// WriteQrels writes qrels in TREC format, one "qid 0 docno grade" line per
// judgment, ordered by query id and document id. An id that is empty or
// contains white space is an error.
func WriteQrels(w io.Writer, qrels Qrels) error {
	bw := bufio.NewWriter(w)
	for _, qid := range sortedKeys(qrels) {
		if !validQID(qid) {
			return fmt.Errorf("qrels: invalid query id %q", qid)
		}
		docs := qrels[qid]
		for _, doc := range sortedKeys(docs) {
			if !validID(doc) {
				return fmt.Errorf("qrels: query %q: invalid document id %q", qid, doc)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, doc, docs[doc])
		}
	}
	return bw.Flush()
}

// WriteQrelsFile writes qrels to path atomically (see WriteQrels).
func WriteQrelsFile(path string, qrels Qrels) error {
	return atomicfile.Write(path, func(f io.Writer) error { return WriteQrels(f, qrels) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
