// Package synth generates synthetic TREC qrels and runs of a given shape
// with a fixed seed, for benchmarks of the evaluation path (BenchmarkEval)
// and for tests that need inputs larger than hand-written fixtures.
//
// The data has the shape of a real evaluation: document ids are drawn from
// one collection shared by all queries; each query retrieves Retrieved
// distinct documents with random scores (six decimals, so ties occur and
// tie-breaking is exercised) written in rank order, and has Judged judged
// documents with grades uniform in 0..MaxGrade, most of them among its
// retrieved documents so that every measure is non-trivial.
package synth

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Config is the shape of the generated data.
type Config struct {
	Queries   int    // number of queries
	Retrieved int    // results per query in the run
	Judged    int    // judged documents per query
	MaxGrade  int    // grades are uniform in 0..MaxGrade
	DocPool   int    // size of the shared document collection
	Seed      uint64 // same seed, same files
	Tag       string // run tag
}

// DefaultConfig is the shape of BenchmarkEval: 10,000 queries × 1,000
// retrieved documents, 50 judged documents per query, grades 0–3.
func DefaultConfig() Config {
	return Config{Queries: 10000, Retrieved: 1000, Judged: 50, MaxGrade: 3, DocPool: 5_000_000, Seed: 1, Tag: "synth"}
}

// Validate reports a shape that cannot be generated.
func (c Config) Validate() error {
	switch {
	case c.Queries < 0 || c.Retrieved < 0 || c.Judged < 0 || c.MaxGrade < 0:
		return fmt.Errorf("synth: negative size in %+v", c)
	case c.DocPool < 2*(c.Retrieved+c.Judged):
		return fmt.Errorf("synth: DocPool %d is too small for %d retrieved and %d judged documents", c.DocPool, c.Retrieved, c.Judged)
	case c.Tag == "":
		return fmt.Errorf("synth: empty run tag")
	}
	return nil
}

// Write writes the qrels and the run of cfg in TREC format.
func Write(qrels, run io.Writer, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	qw := bufio.NewWriterSize(qrels, 1<<16)
	rw := bufio.NewWriterSize(run, 1<<16)
	type hit struct {
		doc   int
		score int // millionths
	}
	hits := make([]hit, 0, cfg.Retrieved)
	picked := make(map[int]bool, cfg.Retrieved+cfg.Judged)
	judged := make([]int, 0, cfg.Judged)
	var buf []byte
	for q := range cfg.Queries {
		qid := "q" + strconv.Itoa(q+1)
		clear(picked)
		hits = hits[:0]
		for len(hits) < cfg.Retrieved {
			d := r.IntN(cfg.DocPool)
			if picked[d] {
				continue
			}
			picked[d] = true
			hits = append(hits, hit{d, r.IntN(1_000_000)})
		}
		// Rank order as a search system writes it: score descending, ties by
		// document id descending (trec_eval's order).
		slices.SortFunc(hits, func(a, b hit) int {
			if a.score != b.score {
				return b.score - a.score
			}
			return b.doc - a.doc
		})
		// Judge 70% of the judged documents among the retrieved ones, the
		// rest from the collection.
		judged = judged[:0]
		fromRun := min(cfg.Judged*7/10, len(hits))
		for _, i := range r.Perm(len(hits))[:fromRun] {
			judged = append(judged, hits[i].doc)
		}
		for len(judged) < cfg.Judged {
			d := r.IntN(cfg.DocPool)
			if picked[d] {
				continue
			}
			picked[d] = true
			judged = append(judged, d)
		}
		slices.Sort(judged)
		for _, d := range judged {
			buf = append(buf[:0], qid...)
			buf = append(buf, " 0 "...)
			buf = appendDoc(buf, d)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(r.IntN(cfg.MaxGrade+1)), 10)
			buf = append(buf, '\n')
			if _, err := qw.Write(buf); err != nil {
				return err
			}
		}
		for rank, h := range hits {
			buf = append(buf[:0], qid...)
			buf = append(buf, " Q0 "...)
			buf = appendDoc(buf, h.doc)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(rank+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, float64(h.score)/1e6, 'f', 6, 64)
			buf = append(buf, ' ')
			buf = append(buf, cfg.Tag...)
			buf = append(buf, '\n')
			if _, err := rw.Write(buf); err != nil {
				return err
			}
		}
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	return rw.Flush()
}

func appendDoc(buf []byte, d int) []byte {
	buf = append(buf, "doc"...)
	s := strconv.Itoa(d)
	for range 7 - len(s) {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// WriteFiles writes dir/qrels.txt and dir/run.txt for cfg and returns their
// paths. Each file is written to a temporary name and renamed when complete.
func WriteFiles(dir string, cfg Config) (qrelsPath, runPath string, err error) {
	qrelsPath = filepath.Join(dir, "qrels.txt")
	runPath = filepath.Join(dir, "run.txt")
	qf, err := os.Create(qrelsPath + ".tmp")
	if err != nil {
		return "", "", err
	}
	defer qf.Close()
	rf, err := os.Create(runPath + ".tmp")
	if err != nil {
		return "", "", err
	}
	defer rf.Close()
	if err := Write(qf, rf, cfg); err != nil {
		return "", "", err
	}
	for _, f := range []*os.File{qf, rf} {
		if err := f.Close(); err != nil {
			return "", "", err
		}
	}
	if err := os.Rename(qrelsPath+".tmp", qrelsPath); err != nil {
		return "", "", err
	}
	if err := os.Rename(runPath+".tmp", runPath); err != nil {
		return "", "", err
	}
	return qrelsPath, runPath, nil
}
