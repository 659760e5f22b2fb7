package harness

import (
	"fmt"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Records converts r to the records of the results format. kinds maps doc
// id → doc kind (chunk kind); nil leaves Kind empty. Hits the harness
// judged with a grade above 0 are judged; the rest are marked judged only
// when judgedAll says the dataset's qrels are complete (official benchmarks
// whose gold is the whole truth).
func (r *Result) Records(kinds map[string]string, judgedAll bool) []resultfmt.Record {
	recs := make([]resultfmt.Record, 0, len(r.Tasks))
	for _, tr := range r.Tasks {
		rec := resultfmt.Record{
			Dataset: r.Dataset, Split: r.Split, System: r.System, Config: r.Config,
			Task: tr.ID, Repo: tr.Meta.Repo, Intent: tr.Meta.Intent, Difficulty: tr.Meta.Difficulty,
			Library: tr.Meta.Library, QAType: tr.Meta.QAType, Language: tr.Meta.Language, Naming: tr.Meta.Naming,
			Query: tr.Query, FirstRelevant: tr.FirstRelevant, Values: map[string]float64{},
			LatencyMS: float64(tr.Latency.Microseconds()) / 1000, Error: tr.Err, Warnings: tr.Warnings,
		}
		for i, m := range r.Measures {
			if i < len(tr.Values) {
				rec.Values[m.String()] = tr.Values[i]
			}
		}
		for _, h := range tr.Hits {
			rh := resultfmt.Hit{Rank: h.Rank, DocID: h.DocID, Kind: kinds[h.DocID], Path: h.Path, Symbol: h.Symbol,
				Score: h.Score, Grade: h.Grade, Judged: judgedAll || h.Grade > 0, Tokens: h.Tokens}
			// Lines of every hit that has them (a chunk's, or what a location
			// points at), so that score judges the record as the cell did.
			rh.StartLine, rh.EndLine = h.StartLine, h.EndLine
			if h.DocID == "" {
				// A location's identity for pooling: the lines it points at,
				// or its path alone for a whole file (two such hits of one
				// ranking are one repeat: judged, not an error).
				rh.DocID, rh.Located = h.Path, true
				if h.StartLine > 0 {
					rh.DocID = fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, max(h.EndLine, h.StartLine))
				}
			}
			rec.Hits = append(rec.Hits, rh)
		}
		recs = append(recs, rec)
	}
	return recs
}

// Cell is the cell file of r; peakRSSMB is what the caller measured around
// Run (0 = not measured).
func (r *Result) Cell(peakRSSMB float64, commit string) resultfmt.Cell {
	c := resultfmt.Cell{Dataset: r.Dataset, Split: r.Split, System: r.System, Config: r.Config,
		ConfigHash: r.ConfigHash, DataHash: r.DataHash, IndexSeconds: r.IndexTime.Seconds(),
		IndexedDocs: r.IndexedDocs, PeakRSSMB: peakRSSMB, CPUClass: r.CPUClass, Commit: commit,
		Tokenizer: r.Tokenizer}
	if len(r.Versions) > 0 {
		c.Versions = map[string]string{}
		for k, v := range r.Versions {
			c.Versions[k] = v
		}
	}
	if len(r.IndexReused) > 0 {
		c.IndexReused, c.IndexBuildSeconds = len(r.IndexReused), r.IndexBuildTime.Seconds()
	}
	for _, m := range r.Models {
		c.Models = append(c.Models, resultfmt.CellModel{ID: m.ID, Source: m.Source, Dimension: m.Dimension,
			Parameters: m.Parameters, Engine: m.Engine, Served: m.Served})
	}
	c.Warnings = append(c.Warnings, r.Warnings...)
	for _, t := range r.Tasks {
		if len(t.Warnings) > 0 {
			c.WarnedTasks++
		}
	}
	return c
}
