//go:build linux && !rbsqltok

package bm25

import "context"

// termTokens turns query terms into FTS5's tokens of them, with the
// index's own tokenizer run by FTS5's C code (ftsTokenizer), so that the
// decoded postings are looked up under exactly the tokens FTS5 would
// match. Results are cached per term.
type termTokens struct {
	tok   *ftsTokenizer
	cache map[string][]string
}

func newTermTokens(tokenize string) (*termTokens, error) {
	tok, err := newFTSTokenizer(tokenize)
	if err != nil {
		return nil, err
	}
	return &termTokens{tok: tok, cache: map[string][]string{}}, nil
}

// tokens returns each term's tokens in order.
func (t *termTokens) tokens(ctx context.Context, terms []string) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]string, len(terms))
	for i, term := range terms {
		toks, ok := t.cache[term]
		if !ok {
			var err error
			if toks, err = t.tok.tokens(term); err != nil {
				return nil, err
			}
			t.cache[term] = toks
		}
		out[i] = toks
	}
	return out, nil
}

func (t *termTokens) Close() error { return t.tok.Close() }
