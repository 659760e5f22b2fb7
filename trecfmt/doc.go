// Package trecfmt reads and writes the file formats of retrieval evaluation:
// TREC qrels ("qid iter docno rel"), TREC runs ("qid Q0 docno rank score
// tag") and BEIR dataset folders (corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv).
//
// Every reader reports bad input as a *SyntaxError naming the file, the line
// and the problem ("run.txt:12: score \"x\" is not a number"); none panics.
// Lines starting with '#' and blank lines are skipped in TREC files.
//
// Runs can be large (tens of millions of lines), so they stream: RunReader
// yields one line at a time in the shape of bufio.Scanner, and GroupReader
// yields one query's results at a time, which is what an evaluation needs
// when the run is grouped by query (as runs written by search systems and
// by trec_eval users are). Query ids and run tags are interned, and
// GroupReader stores a query's document ids in one allocation, so memory
// stays near the size of the parsed data.
//
// The package is a leaf (the standard library and internal/atomicfile
// only): it reads formats and knows nothing of the measures. Qrels is an
// alias of the plain map type, so it is assignable to metrics.Qrels; a
// Result converts to a metrics.Result with metrics.Result(r) (same fields),
// which is what the eval command does per query.
//
// Writers produce sorted, deterministic output and write files through a
// temporary file that is renamed into place, so a failed write never leaves
// a half-written file.
package trecfmt
