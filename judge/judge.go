// Package judge turns a system's ranked hits into the ranked list of judged
// units that the metrics package scores, by one set of rules for every
// system and both paths that score: a go test cell (harness) and a campaign
// (report.Score after pooling).
//
// # Units
//
// Gold is judged at its own level: a gold file, symbol, needle, section or
// doc id is one unit, "gold:<kind>:<id>", with its grade in the qrels. Each
// hit becomes the best-graded gold unit it satisfies that no earlier hit was
// credited with; a hit that satisfies none (or only credited ones) is a
// non-relevant unit of its own. So the second chunk of a gold file earns
// nothing: trec_eval with one qrels line per gold unit.
//
// People's grades from a campaign's pool are per retrieved doc (a chunk). A
// graded doc that satisfies no gold unit is a unit of its own,
// "pool:<doc id>", and every pooled grade of the task is in the qrels, as in
// TREC pooling; a pooled grade never changes a gold unit's grade, and a doc
// that satisfies an already credited gold unit is still a duplicate.
// Without pooled grades both paths give identical numbers.
//
// # Hits
//
// A hit is an Item: a doc of the corpus (built-in systems, by doc id), or a
// location (external systems: path, maybe lines, a symbol, a text). The rules,
// by gold kind:
//
//   - doc: the doc id; a location never matches a doc id.
//   - file, test, config: the path.
//   - symbol: the symbol written in the gold equals the hit's fully
//     qualified name or is a dotted suffix of it ("HTTPAdapter.send" and
//     "requests.adapters.HTTPAdapter.send" both name the method of
//     src/requests/adapters.py); or, for a location, its lines cover the gold
//     definition (Overlap).
//   - needle: the needle body's tokens occur in the hit's text
//     (chunk.Contains: whitespace and comments aside); or, for a location
//     without text, its lines cover a chunk that contains the needle.
//   - doc_section: the section's doc id or heading; or, for a location, its
//     lines cover the section.
//
// A location's lines cover a gold range when they are in the same file and
// overlap at least half of the gold's lines; a location with a start line
// only (a tool that reports where a definition starts) covers a range that
// contains that line. A location with no lines covers nothing.
//
// A composite blob (one text per query, as hosted documentation systems
// return) is one rank-1 item judged by content: it satisfies a gold unit
// whose text (the doc's text, the needle's body, the definition's source)
// it contains with a partial ratio of at least CompositeThreshold (the seed
// harness's fuzzy rule). Only rank-1 measures are defined for it.
package judge
