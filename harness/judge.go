package harness

import (
	"strings"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// unitKey names one gold judgment as a qrels doc id. Keys of gold units and
// of non-relevant hits live in different namespaces ("gold:" / "hit:"), so a
// hit can never be mistaken for a judged unit.
func unitKey(r datasets.Relevant) string { return "gold:" + r.Kind + ":" + r.ID }

// matches reports whether doc satisfies judgment r, by r.Kind (see the doc
// comment of datasets.Relevant for the rules).
func matches(r *datasets.Relevant, doc *corpus.Doc) bool {
	switch r.Kind {
	case "doc":
		return doc.ID == r.ID
	case "file", "test", "config":
		return doc.Path == r.ID
	case "symbol":
		return doc.Symbol != "" && (doc.Symbol == r.ID || strings.HasSuffix(doc.Symbol, "."+r.ID))
	case "doc_section":
		return doc.ID == r.ID || (doc.Symbol != "" && doc.Symbol == r.ID)
	case "needle":
		lang := r.Language
		if lang == "" {
			lang = doc.Language
		}
		return chunk.Contains(lang, doc.Text, r.Body)
	}
	return false
}

// judgment is the outcome of judging one ranked list.
type judgment struct {
	units []string       // ranked list as qrels ids, in system order
	qrels map[string]int // every gold unit of the task with its grade
	grade []int          // grade credited to each hit (0 = not relevant)
}

// judge maps each hit to the best gold unit it satisfies that no earlier hit
// has been credited with; a hit that satisfies none (or only already
// credited ones) becomes a non-relevant unit of its own. This makes
// chunk-level retrieval judged at the level of the gold (file, symbol,
// needle) without double counting: the second chunk of a gold file earns
// nothing, as in trec_eval with one qrels line per gold file.
func judge(task *datasets.Task, hits []*corpus.Doc) judgment {
	j := judgment{
		units: make([]string, len(hits)),
		qrels: make(map[string]int, len(task.Gold)),
		grade: make([]int, len(hits)),
	}
	for _, g := range task.Gold {
		k := unitKey(g)
		if g.Grade > j.qrels[k] {
			j.qrels[k] = g.Grade
		} else if _, ok := j.qrels[k]; !ok {
			j.qrels[k] = g.Grade
		}
	}
	credited := make(map[string]bool)
	for i, doc := range hits {
		best, bestGrade := "", -1
		for gi := range task.Gold {
			g := &task.Gold[gi]
			k := unitKey(*g)
			if credited[k] || g.Grade <= bestGrade || !matches(g, doc) {
				continue
			}
			best, bestGrade = k, g.Grade
		}
		if best == "" {
			j.units[i] = "hit:" + doc.ID
			continue
		}
		credited[best] = true
		j.units[i] = best
		j.grade[i] = bestGrade
	}
	return j
}
