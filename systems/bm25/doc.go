// Package bm25 is the lexical baseline: Okapi BM25 ranking by SQLite FTS5
// (github.com/mattn/go-sqlite3 built with the sqlite_fts5 tag).
//
// # Index
//
// Each doc becomes one row of a contentless FTS5 table with three columns:
// symbol (Doc.Symbol), path (Doc.Path) and body (Doc.Title and Doc.Text).
// Rows are numbered in doc-ID order, so "score descending, then rowid"
// is "score descending, then doc ID" and ties break deterministically. The
// index lives on disk at
//
//	<Options.CacheDir>/bm25/<corpus hash[:16]>-<config hash[:16]>/index.db
//
// It is built into a temporary file in that directory and renamed into
// place when complete, so a half-built index is never seen; an existing file
// is reused only when its recorded hashes and doc count match and SQLite's
// quick_check passes. Options.NoCache rebuilds it.
//
// A build is one transaction on a file with no journal and no syncs (a
// failed build is discarded, never recovered). FTS5's hashsize is set so
// that the pending postings of the whole corpus stay in memory: the commit
// writes them out as one segment, with no merges, and the 'optimize' that
// follows has nothing to do (a corpus past the hashsize still ends as one
// segment, merged). The index just built and renamed is opened without a
// second quick_check. Open decodes the index into memory (postings.go),
// where Search scores it.
//
// # Tokenizers
//
//   - unicode61: FTS5's unicode61 tokenizer (case folding, diacritics
//     removed); "_" separates tokens, camelCase does not.
//   - porter: the same followed by FTS5's Porter stemmer.
//   - code: identifiers are split in Go before FTS5 sees the text, on both
//     documents and queries: parseHTTPResponse2 is indexed as
//     "parsehttpresponse2 parse http response 2", parse_http_response as
//     "parse_http_response parse http response". The whole lowercased
//     identifier is kept so an exact identifier query still matches best.
//     FTS5 then applies porter over unicode61 with "_" as a token character.
//     Splitting in Go rather than in an FTS5 custom tokenizer avoids a cgo
//     callback per token and keeps the rule testable as plain Go; the cost
//     is that the table stores no original text (it is contentless anyway).
//
// # Scoring
//
// Scores are -bm25(fts, symbol, path, body) with the Config's column
// weights, so higher is better. FTS5 fixes k1 = 1.2 and b = 0.75; they are
// not tunable here. FTS5 also floors the IDF of a term found in half the
// docs or more at 1e-6, so very common words barely count, though they
// still cost time: search time grows with the number of docs that match
// any query term.
//
// # Queries
//
// User text never reaches FTS5 as query syntax. The query is tokenized in
// Go the way the index tokenizer would see it, each distinct term is
// written as an FTS5 string ("term", inner quotes doubled), and the terms are
// joined with OR (for SearchFTS5 and the SQL fallback); Search looks each
// term up in the decoded index under the tokens FTS5's own tokenizer, called
// from C on Linux (ftstok.go; elsewhere an in-memory FTS5 table and its
// fts5vocab, termtokens_sql.go), gives it. So quotes, AND/OR/NOT/NEAR, *, ^, :, -, + and parentheses
// are searched as words or dropped as punctuation, and a query with no
// word characters returns no hits.
package bm25
