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
// location (external systems: path, maybe lines, a symbol, a text). The
// judge first resolves what a hit points at (Corpus.Target), against every
// definition the parser found in the file at every nesting level
// (corpus.Corpus.Defs, handed over as data: the judge links no parser) and
// the docs with lines: a chunk id its chunk; lines the narrowest definition
// or doc of the path that holds all of them (a definition holds the blank
// lines after it), or the whole file when none does; a path and a symbol
// the definition it names, at any depth; a path alone the whole file. It
// then credits the gold that contains that thing, never the gold the thing
// contains (a class's chunk earns the class, not its methods), by gold kind:
//
//   - doc: the doc id; a location never matches a doc id.
//   - file, test, config: the path.
//   - symbol, doc_section: the target's lines lie within the range of a
//     definition the gold names (at any nesting level, whose fully
//     qualified name the written symbol names, codetext.SymbolMatches; the
//     section by id or heading). So a method earns its class's gold, a class never its
//     methods', a whole file no definition's.
//   - needle: the text of the chunk the hit points at holds the needle's
//     tokens (codetext.Contains).
//
// A doc without lines (collections of abstracts) is judged by its own
// fields: id, qualified symbol, heading, text. Each gold unit is credited
// at most once per ranking (a hit takes the most specific gold it earns,
// then the best graded), and a hit that points at what an earlier hit
// pointed at is a repeat that earns nothing; every hit gets a unit of its
// own, so repeats are scored, never refused. docs/judging.md has the table
// of cases (rule_test.go).
//
// A composite blob (one text per query, as hosted documentation systems
// return) is one rank-1 item judged by content: it satisfies a gold unit
// whose text (the doc's text, the needle's body, the definition's source)
// it contains with a partial ratio of at least CompositeThreshold (the seed
// harness's fuzzy rule). Only rank-1 measures are defined for it.
package judge
