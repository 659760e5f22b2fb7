package repoqa

import (
	"strings"
	"unicode"
)

// Naming values of a doc task (datasets.Meta.Naming): whether its query
// names the target definition.
const (
	// NamesExact: the definition's simple name is a word of the query, in
	// any case ("Push adds the item to the list" → Push).
	NamesExact = "exact"
	// NamesParts: not the name itself, but every camelCase/snake_case part
	// of it is in the query's words, in any case ("Gets the raw call" names
	// getRawCall by parts; "Returns the raw call" does not: no "get").
	NamesParts = "parts"
	// NamesNone: the query does not name the target.
	NamesNone = "none"
)

// QueryNaming says whether query names a definition called name: NamesExact,
// NamesParts or NamesNone. Words are runs of letters, digits and "_"; the
// exact test is case-sensitive, the parts test compares lower-case parts of
// the name with lower-case parts of the query's words.
func QueryNaming(query, name string) string {
	if name == "" {
		return NamesNone
	}
	for _, w := range identWords(query) {
		if strings.EqualFold(w, name) {
			return NamesExact
		}
	}
	parts := nameParts(name)
	if len(parts) == 0 {
		return NamesNone
	}
	have := map[string]bool{}
	for _, w := range identWords(query) {
		for _, p := range nameParts(w) {
			have[p] = true
		}
	}
	for _, p := range parts {
		if !have[p] {
			return NamesNone
		}
	}
	return NamesParts
}

// identWords splits s into identifier-like words (letters, digits, "_").
func identWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') })
}

// nameParts splits an identifier at "_" and camelCase boundaries
// ("getXAConnection" → get, xa, connection; "visit_enum" → visit, enum),
// lower-cased; digits stay with the letters before them.
func nameParts(name string) []string {
	var out []string
	for _, seg := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
		rs := []rune(seg)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			digitToUpper := unicode.IsDigit(rs[i-1]) && unicode.IsUpper(rs[i])
			// "XAConnection": the last capital of a run starts the next part.
			acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerToUpper || digitToUpper || acronymEnd {
				out = append(out, strings.ToLower(string(rs[start:i])))
				start = i
			}
		}
		out = append(out, strings.ToLower(string(rs[start:])))
	}
	return out
}

// summaryWords is the set of lower-case words (letters and digits) of a
// summary, the unit of WordOverlap.
func summaryWords(s string) map[string]bool {
	ws := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
		ws[w] = true
	}
	return ws
}

// WordOverlap is the Jaccard overlap of two summaries' distinct words
// (lower case, runs of letters and digits): the words both have over the
// words either has; 1 for the same words, 0 when none is shared.
func WordOverlap(a, b string) float64 {
	return overlapSets(summaryWords(a), summaryWords(b))
}

func overlapSets(a, b map[string]bool) float64 {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	if u := len(a) + len(b) - n; u > 0 {
		return float64(n) / float64(u)
	}
	return 0
}

// MaskWord replaces a query's leading name in the masked variant of a
// dataset (Config.MaskLeadingName).
const MaskWord = "It"

// maskLeading replaces the query's first word by MaskWord when that word is
// the target's name ("Push adds the item to the list" → "It adds the item
// to the list"); other queries are returned unchanged.
func maskLeading(query, name string) (string, bool) {
	first, rest, _ := strings.Cut(query, " ")
	if name == "" || first != name || rest == "" {
		return query, false
	}
	return MaskWord + " " + rest, true
}
