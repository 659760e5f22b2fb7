//go:build linux && !rbsqltok

package bm25

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestFTSTokenizerMatchesSQL holds the tokenizer run in C to what FTS5
// indexes for the same text through SQL (an FTS5 table's fts5vocab, the
// reference), for every config's tokenize= argument, on query terms of
// every kind: words, stems, identifiers, digits, diacritics, other
// scripts, a term longer than FTS5's token limit.
func TestFTSTokenizerMatchesSQL(t *testing.T) {
	terms := append(generatedQueries(30),
		"running", "Runs", "ParseHTTPResponse2", "read_file", "__init__", "x", "42", "3.14",
		"Ünïcödé", "café", "naïve", "Straße", "日本語", "Ελληνικά", "emoji😀mix", "tab\tsep",
		"O'Reilly", "it's", "e-mail", "a_b_c", "ABC_def", "relational", "generalizations",
		strings.Repeat("long", 9000), "", "   ", "!!!")
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			want, err := sqlTokens(t.Context(), cfg.ftsTokenizer(), terms)
			require.NoError(t, err)
			tok, err := newFTSTokenizer(cfg.ftsTokenizer())
			require.NoError(t, err)
			defer tok.Close()
			stemmed := false
			for i, term := range terms {
				got, err := tok.tokens(term)
				require.NoError(t, err)
				if diff := cmp.Diff(want[i], got); diff != "" {
					t.Fatalf("%q (-SQL +C):\n%s", term, diff)
				}
				stemmed = stemmed || term == "running" && len(got) == 1 && got[0] == "run"
			}
			if stemmed != (cfg.Tokenizer != TokUnicode61) {
				t.Fatalf("stemmed %v with tokenizer %s", stemmed, cfg.ftsTokenizer())
			}
		})
	}
}

func TestTokenizeArgs(t *testing.T) {
	for in, want := range map[string][]string{
		"porter unicode61 remove_diacritics 2":                {"porter", "unicode61", "remove_diacritics", "2"},
		"porter unicode61 remove_diacritics 2 tokenchars '_'": {"porter", "unicode61", "remove_diacritics", "2", "tokenchars", "_"},
		"unicode61 separators 'it''s'":                        {"unicode61", "separators", "it's"},
	} {
		got, err := tokenizeArgs(in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "  ", "unicode61 tokenchars '_"} {
		_, err := tokenizeArgs(bad)
		require.Error(t, err, bad)
	}
}

// sqlTokens is the reference: each term is a row of an in-memory FTS5
// table with the tokenize= argument, inside a transaction that is rolled
// back; fts5vocab lists the tokens FTS5 indexed for it, in order.
func sqlTokens(ctx context.Context, tokenize string, terms []string) ([][]string, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE tok USING fts5(x, tokenize=` + sqlString(tokenize) + `)`,
		`CREATE VIRTUAL TABLE tokv USING fts5vocab(tok, instance)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := make([][]string, len(terms))
	for i, term := range terms {
		out[i] = []string{}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tok(rowid, x) VALUES(?, ?)`, i+1, term); err != nil {
			return nil, err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM tokv ORDER BY doc, offset`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var doc int
		var tok string
		if err := rows.Scan(&doc, &tok); err != nil {
			return nil, err
		}
		out[doc-1] = append(out[doc-1], tok)
	}
	return out, rows.Err()
}
