//go:build !linux || rbsqltok

package bm25

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// termTokens turns query terms into FTS5's tokens of them, with the
// index's own tokenizer run by SQLite (an in-memory FTS5 table and its
// fts5vocab), so that the decoded postings are looked up under exactly the
// tokens FTS5 would match. Results are cached per term. This is the path
// off Linux: termtokens_cgo.go calls FTS5's tokenizer from C through
// weakly declared SQLite symbols, which only Linux's linker has been
// checked with (the tag rbsqltok selects this file on Linux, for its
// tests).
type termTokens struct {
	db    *sql.DB
	cache map[string][]string
}

func newTermTokens(tokenize string) (*termTokens, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE tok USING fts5(x, tokenize=` + sqlString(tokenize) + `)`,
		`CREATE VIRTUAL TABLE tokv USING fts5vocab(tok, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return &termTokens{db: db, cache: map[string][]string{}}, nil
}

// tokens returns each term's tokens in order.
func (t *termTokens) tokens(ctx context.Context, terms []string) ([][]string, error) {
	var missing []string
	for _, term := range terms {
		if _, ok := t.cache[term]; !ok && !slices.Contains(missing, term) {
			missing = append(missing, term)
		}
	}
	if len(missing) > 0 {
		var q strings.Builder
		args := make([]any, 0, 2*len(missing))
		q.WriteString(`INSERT INTO tok(rowid, x) VALUES `)
		for i, term := range missing {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?)")
			args = append(args, i+1, term)
			t.cache[term] = []string{}
		}
		// Inside a transaction that is rolled back: FTS5 tokenizes the rows
		// into its pending data, which fts5vocab reads, and nothing is
		// written.
		tx, err := t.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return nil, err
		}
		rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM tokv ORDER BY doc, offset`)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var doc int
			var tok string
			if err := rows.Scan(&doc, &tok); err != nil {
				rows.Close()
				return nil, err
			}
			if doc < 1 || doc > len(missing) {
				rows.Close()
				return nil, fmt.Errorf("tokenizing: row %d", doc)
			}
			t.cache[missing[doc-1]] = append(t.cache[missing[doc-1]], tok)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := tx.Rollback(); err != nil {
			return nil, err
		}
	}
	out := make([][]string, len(terms))
	for i, term := range terms {
		out[i] = t.cache[term]
	}
	return out, nil
}

func (t *termTokens) Close() error { return t.db.Close() }
