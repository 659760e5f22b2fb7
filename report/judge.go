package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Judgment is one grade a person gave a pooled result (from a filled
// grading sheet or a labels.jsonl).
type Judgment struct {
	Task   string
	DocID  string
	Grade  int
	Source string // file:line
	// CaseSHA and HitSHA are the hashes of the case and the hit as they
	// were graded (the sheet's case_sha256 and hit_sha256); "" in an
	// older sheet, whose grades are used unchecked.
	CaseSHA, HitSHA string
}

// Bind sets aside the judgments whose case or hit changed since they were
// graded: a case whose query or gold no longer hashes to the recorded
// CaseSHA, or a hit of recs with the judged result id whose text (or,
// without one, what it names) no longer hashes to HitSHA. It returns the
// judgments to use, the stale ones as failures (kind stale_grade, one per
// grade, in input order) and how many carried no hashes to check.
func Bind(run *campaignfmt.Campaign, recs []resultfmt.Record, human []Judgment) (kept []Judgment, stale []campaignfmt.Failure, unbound int) {
	caseSHA := map[string]string{}
	for _, t := range run.Tasks {
		caseSHA[t.ID] = t.SHA256()
	}
	hitNow := map[[2]string]string{}
	ids := newResultIDs(recs)
	for i := range recs {
		for _, h := range recs[i].Hits {
			if ids.of(recs[i].Task, h) == h.DocID { // the result's own hit, as the sheet bound it
				hitNow[[2]string{recs[i].Task, h.DocID}] = hitSHA(h)
			}
		}
	}
	for _, j := range human {
		if j.CaseSHA == "" && j.HitSHA == "" {
			unbound++
		}
		now, known := caseSHA[j.Task]
		if known && j.CaseSHA != "" && j.CaseSHA != now {
			stale = append(stale, campaignfmt.Failure{Kind: campaignfmt.FailStaleGrade, Task: j.Task,
				Message: fmt.Sprintf("%s: grade %d of %s not used: the case's query or gold changed since it was graded (case_sha256 %s, now %s)", j.Source, j.Grade, j.DocID, j.CaseSHA, now)})
			continue
		}
		if h, ok := hitNow[[2]string{j.Task, j.DocID}]; ok && j.HitSHA != "" && j.HitSHA != h {
			stale = append(stale, campaignfmt.Failure{Kind: campaignfmt.FailStaleGrade, Task: j.Task,
				Message: fmt.Sprintf("%s: grade %d of %s not used: the result's text changed since it was graded (hit_sha256 %s, now %s)", j.Source, j.Grade, j.DocID, j.HitSHA, h)})
			continue
		}
		kept = append(kept, j)
	}
	return kept, stale, unbound
}

// Judge merges the case file's gold (run.Tasks), the people's judgments
// and the hits of recs into qrels, and regrades every hit of recs in place,
// by the rules of package judge — the same rules a go test cell uses: each
// gold unit is credited once, at its first matching hit; a hit that matches
// no gold unit takes the grade people gave it, as a pooled unit of its own;
// the rest are not relevant (Judged false when nobody graded them). Every
// gold unit and every pooled grade is in the qrels, retrieved or not.
// Judgments for unknown tasks are errors.
func Judge(run *campaignfmt.Campaign, recs []resultfmt.Record, human []Judgment) (metrics.Qrels, error) {
	tasks := map[string]*campaignfmt.Task{}
	for i := range run.Tasks {
		tasks[run.Tasks[i].ID] = &run.Tasks[i]
	}
	people := map[string]map[string]int{}
	ids := newResultIDs(recs)
	// A sheet made before locations of a chunk's lines were pooled as that
	// chunk may grade both: the chunk's own grade wins (second pass).
	alias := map[[2]string]string{} // (task, a location's id) → the chunk's
	for i := range recs {
		for _, h := range recs[i].Hits {
			if id := ids.of(recs[i].Task, h); id != h.DocID {
				alias[[2]string{recs[i].Task, h.DocID}] = id
			}
		}
	}
	var own, aliased []Judgment
	for _, j := range human {
		if id, ok := alias[[2]string{j.Task, j.DocID}]; ok {
			j.DocID = id
			aliased = append(aliased, j)
		} else {
			own = append(own, j)
		}
	}
	for _, j := range append(aliased, own...) {
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
	// What each pooled doc is (path, symbol): the hits that put it in the
	// pool say, so that a graded chunk of a gold unit counts as that unit.
	seen := map[string]map[string]judge.Item{}
	for i := range recs {
		for _, h := range recs[i].Hits {
			if seen[recs[i].Task] == nil {
				seen[recs[i].Task] = map[string]judge.Item{}
			}
			if ids.of(recs[i].Task, h) == h.DocID {
				seen[recs[i].Task][h.DocID] = hitItem(h)
			}
		}
	}
	pools := map[string][]judge.Pooled{}
	for task, docs := range people {
		ids := make([]string, 0, len(docs))
		for id := range docs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			it, ok := seen[task][id]
			if !ok {
				it = judge.Item{DocID: id}
			}
			pools[task] = append(pools[task], judge.Pooled{Item: it, Grade: docs[id]})
		}
	}
	q := metrics.Qrels{}
	for _, t := range run.Tasks {
		q[t.ID] = judge.Rank(gold(&t), nil, spanCorpus(&t), pools[t.ID]).Qrels
	}
	for i := range recs {
		r := &recs[i]
		t := tasks[r.Task]
		var g []datasets.Relevant
		var spans *judge.Corpus
		if t != nil {
			g, spans = gold(t), spanCorpus(t)
		}
		items := make([]judge.Item, len(r.Hits))
		for k, h := range r.Hits {
			items[k] = hitItem(h)
			// A location of a chunk's lines takes the chunk's pooled
			// grade; the judge reads a location by its lines, and its
			// id only to find that grade.
			items[k].DocID = ids.of(r.Task, h)
		}
		jr := judge.Rank(g, items, spans, pools[r.Task])
		if q[r.Task] == nil {
			q[r.Task] = jr.Qrels
		}
		for k := range r.Hits {
			h := &r.Hits[k]
			_, graded := people[r.Task][ids.of(r.Task, *h)]
			h.Unit, h.Grade = jr.Units[k], jr.Grades[k]
			h.Judged = graded || strings.HasPrefix(h.Unit, "gold:")
		}
	}
	return q, nil
}

// hitItem is what the judge reads of a record's hit.
func hitItem(h resultfmt.Hit) judge.Item {
	return judge.Item{DocID: h.DocID, Located: h.Located, Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol}
}

// spanCorpus is where the task's gold lies, as far as the campaign recorded.
func spanCorpus(t *campaignfmt.Task) *judge.Corpus {
	spans := map[int][]corpus.Span{}
	for i, g := range t.Gold {
		if len(g.Spans) > 0 {
			spans[i] = g.Spans
		}
	}
	return judge.SpanCorpus(spans, gold(t))
}

// gold is the task's gold as the judge reads it.
func gold(t *campaignfmt.Task) []datasets.Relevant {
	out := make([]datasets.Relevant, len(t.Gold))
	for i, g := range t.Gold {
		out[i] = datasets.Relevant{Kind: g.Kind, ID: g.ID, Grade: g.Grade, Path: g.Path}
	}
	return out
}

// goldKept lists the people's grades the case file's gold overrules: a
// graded result that satisfies a gold unit belongs to that unit, whose
// grade is the case file's (the one rule, docs/judging.md) — a chunk
// inside a gold file included. A grade that agrees with the gold's is not
// listed; one that differs (or was given to a second chunk of a unit
// already credited) is, so that it is never dropped without notice.
func goldKept(q metrics.Qrels, recs []resultfmt.Record, human []Judgment) []string {
	goldGrade := map[[2]string]int{} // (task, result) → grade credited from a gold unit
	ids := newResultIDs(recs)
	for i := range recs {
		for _, h := range recs[i].Hits {
			if strings.HasPrefix(h.Unit, "gold:") {
				goldGrade[[2]string{recs[i].Task, ids.of(recs[i].Task, h)}] = h.Grade
			}
		}
	}
	var out []string
	for _, j := range human {
		if _, own := q[j.Task][judge.PoolKey(j.DocID)]; own {
			continue // a unit of its own: the person's grade counts
		}
		g, ok := goldGrade[[2]string{j.Task, j.DocID}]
		if ok && g == j.Grade {
			continue
		}
		why := "it satisfies a gold unit of the case file another hit was already credited with"
		if ok {
			why = fmt.Sprintf("it satisfies a gold unit of the case file, graded %d there", g)
		}
		out = append(out, fmt.Sprintf("%s: %s %s graded %d, not used: %s (the case file's grade counts; edit the case file to change it)", j.Source, j.Task, j.DocID, j.Grade, why))
	}
	return out
}

// Rescore recomputes Values and FirstRelevant of every record from its
// (re)graded hits and qrels, for measures ms. A failed record keeps no hits
// and scores 0.
func Rescore(recs []resultfmt.Record, q metrics.Qrels, ms []metrics.Measure) error {
	for i := range recs {
		r := &recs[i]
		ranked := make([]string, 0, len(r.Hits))
		r.FirstRelevant = 0
		sort.SliceStable(r.Hits, func(a, b int) bool { return r.Hits[a].Rank < r.Hits[b].Rank })
		for _, h := range r.Hits {
			u := h.Unit
			if u == "" {
				u = h.DocID // records judged before units were recorded
			}
			ranked = append(ranked, u)
			if r.FirstRelevant == 0 && h.Grade >= 1 {
				r.FirstRelevant = h.Rank
			}
		}
		vals, err := metrics.Score(ranked, q[r.Task], ms, metrics.Options{Tokens: hitTokens(r.Hits)})
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

// hitTokens are the tokens the cell counted for hits (sorted by rank), for
// the token measures (docs/judging.md, Tokens); nil when it counted none.
func hitTokens(hits []resultfmt.Hit) []int {
	var out []int
	counted := false
	for _, h := range hits {
		out = append(out, h.Tokens)
		counted = counted || h.Tokens > 0
	}
	if !counted {
		return nil
	}
	return out
}

// relevant counts the relevant docs (grade ≥ 1) of a task's qrels.
func relevant(q metrics.Qrels, task string) int {
	n := 0
	for _, g := range q[task] {
		if g >= 1 {
			n++
		}
	}
	return n
}

// ScoreCampaign regrades recs (in place) with the gold of run and the people's
// judgments, recomputes every measure of cfg and summarises them: the
// whole of `retrievalbench score`.
//
// Grades bound to a case or hit that changed since are not used (Bind):
// the summary lists each as a stale_grade failure.
func ScoreCampaign(run *campaignfmt.Campaign, recs []resultfmt.Record, human []Judgment, cfg Config) (*Summary, error) {
	human, stale, unbound := Bind(run, recs, human)
	q, err := Judge(run, recs, human)
	if err != nil {
		return nil, err
	}
	if err := Rescore(recs, q, cfg.Measures()); err != nil {
		return nil, err
	}
	s, err := Summarize(Input{Campaign: run, Records: recs, Qrels: q}, cfg)
	if err != nil {
		return nil, err
	}
	s.GoldKept = goldKept(q, recs, human)
	s.Failures = append(s.Failures, stale...)
	sortFailures(s.Failures)
	s.StaleGrades = len(stale)
	if unbound > 0 {
		s.Meta.Notes = append(s.Meta.Notes, fmt.Sprintf("%d grades carry no case or hit hash (a sheet written before grades were bound): used unchecked", unbound))
	}
	return s, nil
}
