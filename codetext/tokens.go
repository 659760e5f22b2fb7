package codetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens lexes src as code of lang ("python", "go", "java", "typescript",
// "rust", "cpp"; anything else gets a generic C-like lexer without comment
// removal) into the tokens that token equivalence compares:
//
//   - whitespace and comments are dropped (# in Python; // and /* */ in the
//     others, nested /* */ in Rust);
//   - string and character literals are one token each, quotes and prefixes
//     included (Python r/b/f prefixes and triple quotes, Go raw strings, Java
//     text blocks, TypeScript template literals and regular expressions,
//     Rust raw strings, C++ raw strings), so a # or // inside a string is
//     not a comment;
//   - identifiers and keywords (letters, digits, _; $ in Java and
//     TypeScript) and numbers are one token each;
//   - every other character is a token of its own, so "a==b" and "a == b"
//     lex the same.
//
// Python docstrings are strings, so they stay. Indentation is whitespace,
// so it is ignored. The lexer never fails: an unterminated string or
// comment runs to the end of the input.
func Tokens(lang, src string) []string {
	lx := lexer{lang: lang, src: src}
	return lx.run()
}

// Contains reports whether the token sequence of needle occurs
// contiguously in that of haystack. An empty needle (no tokens) is
// contained nowhere, so a blank gold body never matches.
func Contains(lang, haystack, needle string) bool {
	return NewMatcher(lang, needle).Match(haystack)
}

// Matcher looks for one needle in many haystacks, lexing the needle once.
type Matcher struct {
	lang   string
	needle []string
	fail   []int // KMP failure function of needle
}

// NewMatcher returns a Matcher for the tokens of needle in lang.
func NewMatcher(lang, needle string) *Matcher {
	toks := Tokens(lang, needle)
	fail := make([]int, len(toks))
	for i, k := 1, 0; i < len(toks); i++ {
		for k > 0 && toks[i] != toks[k] {
			k = fail[k-1]
		}
		if toks[i] == toks[k] {
			k++
		}
		fail[i] = k
	}
	return &Matcher{lang: lang, needle: toks, fail: fail}
}

// Len returns the number of tokens in the needle.
func (m *Matcher) Len() int { return len(m.needle) }

// Match reports whether the needle occurs in haystack.
func (m *Matcher) Match(haystack string) bool {
	return m.MatchTokens(Tokens(m.lang, haystack))
}

// MatchTokens reports whether the needle occurs in the already lexed
// haystack (see Tokens), for callers that test many needles against the
// same text.
func (m *Matcher) MatchTokens(hay []string) bool {
	if len(m.needle) == 0 {
		return false
	}
	k := 0
	for _, t := range hay {
		for k > 0 && t != m.needle[k] {
			k = m.fail[k-1]
		}
		if t == m.needle[k] {
			k++
			if k == len(m.needle) {
				return true
			}
		}
	}
	return false
}

type lexer struct {
	lang string
	src  string
	pos  int
	toks []string
	// regexOK tells whether a "/" here would start a TypeScript regular
	// expression (after an operator or at the start) rather than divide.
	regexOK bool
}

func (lx *lexer) emit(start int) {
	lx.toks = append(lx.toks, lx.src[start:lx.pos])
}

func (lx *lexer) peek(off int) byte {
	if lx.pos+off < len(lx.src) {
		return lx.src[lx.pos+off]
	}
	return 0
}

func (lx *lexer) run() []string {
	lx.regexOK = true
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		start := lx.pos
		switch {
		case isSpace(c):
			lx.pos++
			continue
		case lx.comment():
			continue
		case lx.str():
			lx.emit(start)
			lx.regexOK = false
			continue
		case c >= '0' && c <= '9' || c == '.' && isDigit(lx.peek(1)):
			lx.number(start)
			lx.emit(start)
			lx.regexOK = false
			continue
		}
		r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
		lx.pos += n
		if !lx.identStart(r) {
			lx.emit(start) // punctuation: one character, one token
			lx.regexOK = c != ')' && c != ']' && c != '}'
			continue
		}
		for lx.pos < len(lx.src) {
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if !lx.identStart(r) && !unicode.IsDigit(r) {
				break
			}
			lx.pos += n
		}
		lx.emit(start)
		lx.regexOK = regexKeywords[lx.src[start:lx.pos]]
	}
	return lx.toks
}

// regexKeywords are the TypeScript words after which "/" starts a regular
// expression.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (lx *lexer) identStart(r rune) bool {
	if r == '_' || unicode.IsLetter(r) {
		return true
	}
	return r == '$' && (lx.lang == Java || lx.lang == TypeScript)
}

// number consumes a numeric literal: digits, letters (hex digits, suffixes,
// exponents), "_", "." and exponent signs, and C++ digit separators.
func (lx *lexer) number(start int) {
	hex := strings.HasPrefix(lx.src[start:], "0x") || strings.HasPrefix(lx.src[start:], "0X")
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case isDigit(c) || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			lx.pos++
		case c == '.' && isDigit(lx.peek(1)):
			lx.pos++
		case (c == '+' || c == '-') && lx.pos > start && exponent(lx.src[lx.pos-1], hex):
			lx.pos++
		case c == '\'' && lx.lang == Cpp && isAlnum(lx.peek(1)):
			lx.pos++
		default:
			return
		}
	}
}

// exponent reports whether c starts an exponent: e/E in decimal numbers,
// p/P in hexadecimal ones.
func exponent(c byte, hex bool) bool {
	if hex {
		return c == 'p' || c == 'P'
	}
	return c == 'e' || c == 'E'
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// comment skips a comment at pos, if any.
func (lx *lexer) comment() bool {
	c := lx.src[lx.pos]
	switch {
	case c == '#' && lx.lang == Python:
		lx.skipLine()
		return true
	case lx.lang == Python || !knownLang(lx.lang):
		return false
	case c == '/' && lx.peek(1) == '/':
		lx.skipLine()
		return true
	case c == '/' && lx.peek(1) == '*':
		depth := 0
		for lx.pos < len(lx.src) {
			switch {
			case strings.HasPrefix(lx.src[lx.pos:], "/*"):
				depth++
				lx.pos += 2
			case strings.HasPrefix(lx.src[lx.pos:], "*/"):
				depth--
				lx.pos += 2
				if depth == 0 || lx.lang != Rust {
					return true
				}
			default:
				lx.pos++
			}
			if lx.lang != Rust && depth > 1 {
				depth = 1 // C-family block comments do not nest
			}
		}
		return true
	}
	return false
}

func knownLang(lang string) bool {
	switch lang {
	case Python, Go, Java, TypeScript, Rust, Cpp:
		return true
	}
	return false
}

func (lx *lexer) skipLine() {
	if i := strings.IndexByte(lx.src[lx.pos:], '\n'); i >= 0 {
		lx.pos += i
	} else {
		lx.pos = len(lx.src)
	}
}

// str consumes a string or character literal (with its prefix) at pos.
func (lx *lexer) str() bool {
	s := lx.src[lx.pos:]
	switch lx.lang {
	case Python:
		// Prefixes: r, b, u, f, and two-letter combinations, any case.
		i := 0
		for i < len(s) && i < 2 && strings.IndexByte("rRbBuUfF", s[i]) >= 0 {
			i++
		}
		if i < len(s) && (s[i] == '"' || s[i] == '\'') {
			if i > 0 && lx.pos > 0 && isIdentByte(lx.src[lx.pos-1]) {
				return false // "xr'…'" is not a prefix
			}
			q := s[i : i+1]
			if strings.HasPrefix(s[i:], q+q+q) {
				lx.pos += i + 3
				lx.until(q+q+q, true)
			} else {
				lx.pos += i + 1
				lx.untilLine(s[i], true)
			}
			return true
		}
	case Go:
		switch s[0] {
		case '"', '\'':
			lx.pos++
			lx.untilLine(s[0], true)
			return true
		case '`':
			lx.pos++
			lx.until("`", false)
			return true
		}
	case Java:
		switch {
		case strings.HasPrefix(s, `"""`):
			lx.pos += 3
			lx.until(`"""`, true)
			return true
		case s[0] == '"' || s[0] == '\'':
			lx.pos++
			lx.untilLine(s[0], true)
			return true
		}
	case TypeScript:
		switch s[0] {
		case '"', '\'':
			lx.pos++
			lx.untilLine(s[0], true)
			return true
		case '`':
			lx.pos++
			lx.template()
			return true
		case '/':
			if lx.regexOK && len(s) > 1 && s[1] != '/' && s[1] != '*' {
				return lx.regex()
			}
		}
	case Rust:
		return lx.rustStr(s)
	case Cpp:
		return lx.cppStr(s)
	default:
		if s[0] == '"' || s[0] == '\'' {
			lx.pos++
			lx.untilLine(s[0], true)
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool { return c == '_' || isAlnum(c) || c >= 0x80 }

// until advances past the next occurrence of end (skipping backslash
// escapes when escapes is set), or to the end of input.
func (lx *lexer) until(end string, escapes bool) {
	for lx.pos < len(lx.src) {
		if escapes && lx.src[lx.pos] == '\\' {
			lx.pos += 2
			continue
		}
		if strings.HasPrefix(lx.src[lx.pos:], end) {
			lx.pos += len(end)
			return
		}
		lx.pos++
	}
	lx.pos = len(lx.src)
}

// untilLine advances past the closing quote q of a one-line literal; an
// unterminated literal stops at the end of its line.
func (lx *lexer) untilLine(q byte, escapes bool) {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case escapes && c == '\\':
			lx.pos += 2
			continue
		case c == q:
			lx.pos++
			return
		case c == '\n':
			return
		}
		lx.pos++
	}
	lx.pos = len(lx.src)
}

// template consumes a TypeScript template literal after its backquote,
// including nested templates inside ${…}.
func (lx *lexer) template() {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == '\\':
			lx.pos += 2
		case c == '`':
			lx.pos++
			return
		case c == '$' && lx.peek(1) == '{':
			lx.pos += 2
			depth := 1
			for lx.pos < len(lx.src) && depth > 0 {
				switch lx.src[lx.pos] {
				case '{':
					depth++
				case '}':
					depth--
				case '`':
					lx.pos++
					lx.template()
					continue
				case '"', '\'':
					q := lx.src[lx.pos]
					lx.pos++
					lx.untilLine(q, true)
					continue
				}
				lx.pos++
			}
		default:
			lx.pos++
		}
	}
	lx.pos = len(lx.src)
}

// regex consumes a TypeScript regular expression literal with its flags;
// it gives up (returns false) if the line ends first.
func (lx *lexer) regex() bool {
	i, class := lx.pos+1, false
	for i < len(lx.src) {
		c := lx.src[i]
		switch {
		case c == '\n':
			return false
		case c == '\\':
			i += 2
			continue
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			i++
			for i < len(lx.src) && isIdentByte(lx.src[i]) {
				i++
			}
			lx.pos = i
			return true
		}
		i++
	}
	return false
}

func (lx *lexer) rustStr(s string) bool {
	i := 0
	if s[0] == 'b' || s[0] == 'c' {
		i = 1
	}
	if i < len(s) && s[i] == 'r' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '#') {
		// Raw string r#"…"#: no escapes, closed by a quote and as many #.
		j := i + 1
		for j < len(s) && s[j] == '#' {
			j++
		}
		if j < len(s) && s[j] == '"' && (lx.pos == 0 || !isIdentByte(lx.src[lx.pos-1])) {
			hashes := strings.Repeat("#", j-i-1)
			lx.pos += j + 1
			lx.until(`"`+hashes, false)
			return true
		}
		return false
	}
	if i < len(s) && s[i] == '"' && (i == 0 || lx.pos == 0 || !isIdentByte(lx.src[lx.pos-1])) {
		lx.pos += i + 1
		lx.until(`"`, true)
		return true
	}
	if i < len(s) && s[i] == '\'' && (i == 0 || lx.pos == 0 || !isIdentByte(lx.src[lx.pos-1])) {
		// 'x', '\n', '\u{1F600}' are characters; 'a in "&'a T" is a lifetime.
		j := i + 1
		if j < len(s) && s[j] == '\\' {
			lx.pos += j
			lx.untilLine('\'', true)
			return true
		}
		_, n := utf8.DecodeRuneInString(s[j:])
		if j+n < len(s) && s[j+n] == '\'' {
			lx.pos += j + n + 1
			return true
		}
	}
	return false
}

func (lx *lexer) cppStr(s string) bool {
	if lx.pos > 0 && isIdentByte(lx.src[lx.pos-1]) {
		return false
	}
	// Encoding prefixes: L, u, U, u8; R for raw strings.
	i := 0
	switch {
	case strings.HasPrefix(s, "u8"):
		i = 2
	case s[0] == 'L' || s[0] == 'u' || s[0] == 'U':
		i = 1
	}
	if i < len(s) && s[i] == 'R' && i+1 < len(s) && s[i+1] == '"' {
		open := strings.IndexByte(s[i+2:], '(')
		if open >= 0 && open <= 16 {
			delim := s[i+2 : i+2+open]
			lx.pos += i + 2 + open + 1
			lx.until(")"+delim+`"`, false)
			return true
		}
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		lx.pos += i + 1
		lx.untilLine(s[i], true)
		return true
	}
	return false
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v'
}
