package metrics

import "fmt"

// Judgments holds the judgments of many queries in a compact form for
// large qrels (millions of judgments): query i, QIDs[i], judged Docs[i][k]
// with grade Grades[i][k]. Per judgment it costs a string header and an
// int32, where a Qrels map costs several times that in table slots and
// growth. A document must not be judged twice for one query and a query id
// must not appear twice (the readers check both).
type Judgments struct {
	QIDs   []string
	Docs   [][]string
	Grades [][]int32
}

// Len returns the number of judgments.
func (j *Judgments) Len() int {
	n := 0
	for _, d := range j.Docs {
		n += len(d)
	}
	return n
}

// Qrels returns j as a Qrels map.
func (j *Judgments) Qrels() Qrels {
	q := make(Qrels, len(j.QIDs))
	for i, qid := range j.QIDs {
		m := make(map[string]int, len(j.Docs[i]))
		for k, d := range j.Docs[i] {
			m[d] = int(j.Grades[i][k])
		}
		q[qid] = m
	}
	return q
}

// NewJudgmentsEvaluator is NewEvaluator over judgments in compact form;
// the Evaluator reads j and keeps no copy of it. It fails on the same
// errors as NewEvaluator, or on slices of different lengths.
func NewJudgmentsEvaluator(j *Judgments, ms []Measure, opt EvalOptions) (*Evaluator, error) {
	if len(j.Docs) != len(j.QIDs) || len(j.Grades) != len(j.QIDs) {
		return nil, fmt.Errorf("judgments: %d query ids, %d document lists, %d grade lists", len(j.QIDs), len(j.Docs), len(j.Grades))
	}
	index := make(map[string]int32, len(j.QIDs))
	for i, qid := range j.QIDs {
		if len(j.Docs[i]) != len(j.Grades[i]) {
			return nil, fmt.Errorf("judgments: query %q: %d documents, %d grades", qid, len(j.Docs[i]), len(j.Grades[i]))
		}
		if _, dup := index[qid]; dup {
			return nil, fmt.Errorf("judgments: query %q twice", qid)
		}
		index[qid] = int32(i)
	}
	e, err := NewEvaluator(nil, ms, opt)
	if err != nil {
		return nil, err
	}
	e.jg, e.jgIndex = j, index
	return e, nil
}
