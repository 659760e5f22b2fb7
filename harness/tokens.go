package harness

import (
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// Counter counts the tokens of a text under one tokenizer (package tokens'
// Tokenizer); ID names it with its file's hash, as cells record it.
type Counter interface {
	Count(text string) int
	ID() string
}

// tokenText gives each judged item of one corpus its text and counts its
// tokens (docs/judging.md, "Tokens"): a doc's text (its title first, when
// it has one); the text a hit carries; else the corpus text a location
// points at — the lines of its file, or the whole file. Counts are kept by
// what was counted, since one chunk comes back for many queries.
type tokenText struct {
	c     Counter
	files map[string]*corpus.Doc // path → the corpus's whole file
	lines map[string][]string    // path → its lines, split on first use
	memo  map[string]int
}

func newTokenText(c Counter, files *corpus.Corpus) *tokenText {
	tt := &tokenText{c: c, files: map[string]*corpus.Doc{}, lines: map[string][]string{}, memo: map[string]int{}}
	if files != nil {
		for i := range files.Docs {
			if d := &files.Docs[i]; d.Path != "" {
				tt.files[d.Path] = d
			}
		}
	}
	return tt
}

// text returns what the agent is handed for it, and a key that names it.
func (tt *tokenText) text(it judge.Item, doc func(id string) (*corpus.Doc, bool)) (key, text string) {
	if it.DocID != "" && !it.Located {
		if d, ok := doc(it.DocID); ok {
			if d.Title != "" {
				return "doc:" + d.ID, d.Title + "\n" + d.Text
			}
			return "doc:" + d.ID, d.Text
		}
	}
	if it.Text != "" {
		return "", it.Text
	}
	f, ok := tt.files[it.Path]
	if !ok {
		return "", ""
	}
	if it.StartLine <= 0 {
		return "file:" + it.Path, f.Text
	}
	ls, ok := tt.lines[it.Path]
	if !ok {
		ls = strings.SplitAfter(f.Text, "\n")
		tt.lines[it.Path] = ls
	}
	start := min(it.StartLine-1, len(ls))
	end := min(max(it.EndLine, it.StartLine), len(ls))
	return fmt.Sprintf("lines:%s:%d-%d", it.Path, start+1, end), strings.Join(ls[start:end], "")
}

func (tt *tokenText) count(key, text string) int {
	if key == "" {
		return tt.c.Count(text)
	}
	if n, ok := tt.memo[key]; ok {
		return n
	}
	n := tt.c.Count(text)
	tt.memo[key] = n
	return n
}

// tokens returns the tokens of the leading items the token measures read
// (metrics.TokensNeeded); a composite answer is one text, the items' texts
// joined by newlines.
func (tt *tokenText) tokens(its []judge.Item, composite bool, jc *judge.Corpus) []int {
	if composite {
		texts := make([]string, len(its))
		for i, it := range its {
			_, texts[i] = tt.text(it, jc.Doc)
		}
		return []int{tt.c.Count(strings.Join(texts, "\n"))}
	}
	return metrics.TokensNeeded(len(its), func(i int) int {
		return tt.count(tt.text(its[i], jc.Doc))
	})
}
