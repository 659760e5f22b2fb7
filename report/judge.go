package report

import (
	"fmt"
	"sort"

	"github.com/retrievalbench/retrievalbench/metrics"
)

// Judgment is one grade a person gave a pooled result (from a filled
// grading sheet or a labels.jsonl).
type Judgment struct {
	Task   string
	DocID  string
	Grade  int
	Source string // file:line
}

// Qrels are the merged judgments of a campaign: task → doc id → grade.
type Qrels map[string]map[string]int

// placeholderPrefix marks a gold unit no system retrieved: it stays in the
// qrels so that recall and nDCG count it, and no hit can ever match it.
const placeholderPrefix = "gold:"

// Judge merges the case file's gold (run.Tasks), the people's judgments
// and the hits of recs into qrels, and regrades every hit of recs in place:
// a person's grade wins; else the highest grade among the gold units the hit
// matches; else the hit is unjudged (grade 0, Judged false). A gold unit
// with a positive grade that no graded hit matches becomes a placeholder
// doc "gold:<kind>:<id>". Judgments for unknown tasks are errors.
func Judge(run *Run, recs []Record, human []Judgment) (Qrels, error) {
	tasks := map[string]*Task{}
	for i := range run.Tasks {
		tasks[run.Tasks[i].ID] = &run.Tasks[i]
	}
	people := map[string]map[string]int{}
	for _, j := range human {
		if _, ok := tasks[j.Task]; !ok {
			return nil, fmt.Errorf("%s: unknown case %q", j.Source, j.Task)
		}
		if j.Grade < 0 || j.Grade > 3 {
			return nil, fmt.Errorf("%s: grade %d outside 0..3", j.Source, j.Grade)
		}
		if people[j.Task] == nil {
			people[j.Task] = map[string]int{}
		}
		people[j.Task][j.DocID] = j.Grade
	}
	q := Qrels{}
	matched := map[string]map[int]bool{} // task → gold unit index → matched by a graded hit
	for id, docs := range people {
		q[id] = map[string]int{}
		for d, g := range docs {
			q[id][d] = g
		}
	}
	for i := range recs {
		r := &recs[i]
		t := tasks[r.Task]
		if q[r.Task] == nil {
			q[r.Task] = map[string]int{}
		}
		if matched[r.Task] == nil {
			matched[r.Task] = map[int]bool{}
		}
		for k := range r.Hits {
			h := &r.Hits[k]
			h.Grade, h.Judged = 0, false
			goldGrade, goldHit := -1, false
			if t != nil {
				for gi, g := range t.Gold {
					if g.Matches(*h) {
						goldHit = true
						matched[r.Task][gi] = true
						goldGrade = max(goldGrade, g.Grade)
					}
				}
			}
			if g, ok := people[r.Task][h.DocID]; ok {
				h.Grade, h.Judged = g, true
			} else if goldHit {
				h.Grade, h.Judged = goldGrade, true
			}
			if h.Judged {
				q[r.Task][h.DocID] = h.Grade
			}
		}
	}
	for _, t := range run.Tasks {
		if q[t.ID] == nil {
			q[t.ID] = map[string]int{}
		}
		for gi, g := range t.Gold {
			if g.Grade > 0 && !matched[t.ID][gi] {
				q[t.ID][placeholderPrefix+g.Kind+":"+g.ID] = g.Grade
			}
		}
	}
	return q, nil
}

// Rescore recomputes Values and FirstRelevant of every record from its
// (re)graded hits and qrels, for measures ms. A failed record keeps no hits
// and scores 0.
func Rescore(recs []Record, q Qrels, ms []metrics.Measure) error {
	for i := range recs {
		r := &recs[i]
		ranked := make([]string, 0, len(r.Hits))
		r.FirstRelevant = 0
		sort.SliceStable(r.Hits, func(a, b int) bool { return r.Hits[a].Rank < r.Hits[b].Rank })
		for _, h := range r.Hits {
			ranked = append(ranked, h.DocID)
			if r.FirstRelevant == 0 && h.Grade >= 1 {
				r.FirstRelevant = h.Rank
			}
		}
		vals, err := metrics.Score(ranked, q[r.Task], ms, metrics.Options{})
		if err != nil {
			return fmt.Errorf("%s %s: %w", r.Model(), r.Task, err)
		}
		r.Values = map[string]float64{}
		for k, m := range ms {
			r.Values[m.String()] = vals[k]
		}
	}
	return nil
}

// Relevant counts the relevant docs (grade ≥ 1) of a task's qrels.
func (q Qrels) Relevant(task string) int {
	n := 0
	for _, g := range q[task] {
		if g >= 1 {
			n++
		}
	}
	return n
}

// Score regrades recs (in place) with the gold of run and the people's
// judgments, recomputes every measure of cfg and summarises them: the
// whole of `retrievalbench score`.
func Score(run *Run, recs []Record, human []Judgment, cfg Config) (*Summary, error) {
	q, err := Judge(run, recs, human)
	if err != nil {
		return nil, err
	}
	if err := Rescore(recs, q, cfg.Measures()); err != nil {
		return nil, err
	}
	return Summarize(Input{Run: run, Records: recs, Qrels: q}, cfg)
}
