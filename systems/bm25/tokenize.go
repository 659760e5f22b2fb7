package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryTerms bounds the distinct terms of one query. FTS5 flattens an OR
// chain, so this is not a parser limit but a latency guard: a pasted file as
// a query would otherwise scan the postings of thousands of terms.
const maxQueryTerms = 256

// isWordRune reports whether FTS5's unicode61 tokenizer keeps r inside a
// token by default: Unicode categories L*, N* and Co.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// isIdentRune is isWordRune plus '_', the token characters of the code
// tokenizer.
func isIdentRune(r rune) bool { return r == '_' || isWordRune(r) }

// words calls emit for each maximal run of runes satisfying in.
func words(s string, in func(rune) bool, emit func(string)) {
	start := -1
	for i, r := range s {
		if in(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// rune classes for identifier splitting.
const (
	classLower = iota // lower case and caseless letters, Co
	classUpper
	classDigit
)

func runeClass(r rune) int {
	switch {
	case unicode.IsNumber(r):
		return classDigit
	case unicode.IsUpper(r):
		return classUpper
	default:
		return classLower
	}
}

// splitIdentifier calls emit with the lowercased parts of one identifier:
// split on '_', on lower→Upper (parseHTTP), before the last capital of an
// acronym followed by lower case (HTTPResponse → HTTP Response), and between
// letters and digits (response2 → response 2).
func splitIdentifier(id string, emit func(string)) {
	for seg := range strings.SplitSeq(id, "_") {
		if seg == "" {
			continue
		}
		rs := []rune(seg)
		start := 0
		for i := 1; i < len(rs); i++ {
			prev, cur := runeClass(rs[i-1]), runeClass(rs[i])
			boundary := (prev == classDigit) != (cur == classDigit) ||
				prev == classLower && cur == classUpper ||
				prev == classUpper && cur == classUpper && i+1 < len(rs) && runeClass(rs[i+1]) == classLower
			if boundary {
				emit(strings.ToLower(string(rs[start:i])))
				start = i
			}
		}
		emit(strings.ToLower(string(rs[start:])))
	}
}

// codeTerms calls emit with the index terms of s under the code tokenizer:
// for each identifier its whole lowercased form, then its parts when there
// is more than one. Runs of underscores alone are dropped.
func codeTerms(s string, emit func(string)) {
	words(s, isIdentRune, func(id string) {
		if strings.Trim(id, "_") == "" {
			return
		}
		whole := strings.ToLower(id)
		var parts []string
		splitIdentifier(id, func(p string) { parts = append(parts, p) })
		emit(whole)
		if len(parts) == 1 && parts[0] == whole {
			return
		}
		for _, p := range parts {
			emit(p)
		}
	})
}

// codeText rewrites s into the space-separated terms of codeTerms; it is
// what the code tokenizer stores in the FTS5 table.
func codeText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	codeTerms(s, func(t string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	})
	return b.String()
}

// queryTerms returns the distinct lowercased terms of query as the index
// tokenizer of tokenizer would see them, in order of first appearance, at
// most maxQueryTerms.
func queryTerms(tokenizer, query string) []string {
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.ToLower(t)
		if seen[t] || len(terms) >= maxQueryTerms || !utf8.ValidString(t) {
			return
		}
		seen[t] = true
		terms = append(terms, t)
	}
	if tokenizer == TokCode {
		codeTerms(query, add)
	} else {
		words(query, isWordRune, add)
	}
	return terms
}

// matchExpr writes terms as an FTS5 query: each an FTS5 string with inner
// double quotes doubled, joined by OR. Terms never carry FTS5 syntax.
func matchExpr(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}
