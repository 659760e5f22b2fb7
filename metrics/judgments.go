package metrics

import (
	"fmt"
	"maps"
	"slices"
)

// Judgments holds the judgments of many queries in a compact form for
// large qrels (millions of judgments), with no pointer per judgment
// (nothing for the garbage collector to mark): query i, QIDs[i], has
// judgments k from Starts[i] to Starts[i+1] (exclusive), document
// IDs[Ends[k-1]:Ends[k]] (from 0 for k = 0) with grade Grades[k]. Per
// judgment it costs the id's bytes, a uint32 and an int32, where a Qrels
// map costs several times that in string headers, table slots and growth.
// A document must not be judged twice for one query and a query id must
// not appear twice (the readers check both; trecfmt.Judgments has the
// same fields).
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

// Len returns the number of judgments.
func (j *Judgments) Len() int { return len(j.Ends) }

// Qrels returns j as a Qrels map.
func (j *Judgments) Qrels() Qrels {
	q := make(Qrels, len(j.QIDs))
	for i, qid := range j.QIDs {
		m := make(map[string]int, j.Starts[i+1]-j.Starts[i])
		for k := j.Starts[i]; k < j.Starts[i+1]; k++ {
			m[j.Doc(k)] = int(j.Grades[k])
		}
		q[qid] = m
	}
	return q
}

// JudgmentsOf returns qrels in compact form, queries and documents in
// byte-wise order (for tests and small qrels; the readers build Judgments
// directly). It fails on more than 4 GiB of document ids.
func JudgmentsOf(qrels Qrels) (*Judgments, error) {
	j := &Judgments{Starts: []int{0}}
	var ids []byte
	for _, qid := range slices.Sorted(maps.Keys(qrels)) {
		for _, d := range slices.Sorted(maps.Keys(qrels[qid])) {
			if len(ids)+len(d) > 1<<32-1 {
				return nil, fmt.Errorf("judgments: more than 4 GiB of document ids")
			}
			ids = append(ids, d...)
			j.Ends = append(j.Ends, uint32(len(ids)))
			j.Grades = append(j.Grades, int32(qrels[qid][d]))
		}
		j.QIDs = append(j.QIDs, qid)
		j.Starts = append(j.Starts, len(j.Ends))
	}
	j.IDs = string(ids)
	return j, nil
}

// NewJudgmentsEvaluator is NewEvaluator over judgments in compact form;
// the Evaluator reads j and keeps no copy of it. It fails on the same
// errors as NewEvaluator, or on lists that do not fit together.
func NewJudgmentsEvaluator(j *Judgments, ms []Measure, opt EvalOptions) (*Evaluator, error) {
	n := len(j.Ends)
	if len(j.Starts) != len(j.QIDs)+1 || j.Starts[0] != 0 || j.Starts[len(j.QIDs)] != n || len(j.Grades) != n {
		return nil, fmt.Errorf("judgments: %d query ids, %d starts, %d ends, %d grades", len(j.QIDs), len(j.Starts), n, len(j.Grades))
	}
	if n > 0 && int(j.Ends[n-1]) != len(j.IDs) {
		return nil, fmt.Errorf("judgments: the ids end at %d, %d bytes of ids", j.Ends[n-1], len(j.IDs))
	}
	index := make(map[string]int32, len(j.QIDs))
	for i, qid := range j.QIDs {
		if j.Starts[i+1] < j.Starts[i] {
			return nil, fmt.Errorf("judgments: query %q: starts %d, next %d", qid, j.Starts[i], j.Starts[i+1])
		}
		if _, dup := index[qid]; dup {
			return nil, fmt.Errorf("judgments: query %q twice", qid)
		}
		index[qid] = int32(i)
	}
	for k := 1; k < n; k++ {
		if j.Ends[k] < j.Ends[k-1] {
			return nil, fmt.Errorf("judgments: judgment %d ends at %d, before the one before it (%d)", k, j.Ends[k], j.Ends[k-1])
		}
	}
	e, err := NewEvaluator(nil, ms, opt)
	if err != nil {
		return nil, err
	}
	e.jg, e.jgIndex = j, index
	return e, nil
}
