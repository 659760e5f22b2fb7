package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a text segment before it is split into words.
type normalizer func(string) string

type normalizerJSON struct {
	Type string `json:"type"`
	// BertNormalizer
	CleanText          bool  `json:"clean_text"`
	HandleChineseChars bool  `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          bool  `json:"lowercase"`
	// Sequence
	Normalizers []json.RawMessage `json:"normalizers"`
	// Precompiled
	PrecompiledCharsmap string `json:"precompiled_charsmap"`
}

func parseNormalizer(raw json.RawMessage) ([]normalizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n normalizerJSON
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch n.Type {
	case "BertNormalizer":
		strip := n.Lowercase // strip_accents null follows lowercase
		if n.StripAccents != nil {
			strip = *n.StripAccents
		}
		b := bertNormalizer{clean: n.CleanText, chinese: n.HandleChineseChars, strip: strip, lower: n.Lowercase}
		return []normalizer{b.normalize}, nil
	case "Lowercase":
		return []normalizer{lowercase}, nil
	case "StripAccents":
		return []normalizer{dropNonspacingMarks}, nil
	case "NFD":
		return []normalizer{norm.NFD.String}, nil
	case "NFKD":
		return []normalizer{norm.NFKD.String}, nil
	case "NFC":
		return []normalizer{norm.NFC.String}, nil
	case "NFKC":
		return []normalizer{norm.NFKC.String}, nil
	case "Precompiled":
		p, err := parsePrecompiled(n.PrecompiledCharsmap)
		if err != nil {
			return nil, err
		}
		return []normalizer{p.normalize}, nil
	case "Sequence":
		var out []normalizer
		for _, r := range n.Normalizers {
			ns, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			out = append(out, ns...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("normalizer type %q is not supported (BertNormalizer, Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Precompiled, Sequence)", n.Type)
}

// bertNormalizer is Hugging Face's BertNormalizer; its steps run in the
// same order as there: clean, CJK spacing, strip accents, lowercase.
type bertNormalizer struct {
	clean, chinese, strip, lower bool
}

func (b bertNormalizer) normalize(s string) string {
	if isASCII(s) {
		// Fast path: CJK spacing, NFD and mark removal do nothing to ASCII.
		return b.normalizeASCII(s)
	}
	if b.clean || b.chinese {
		var sb strings.Builder
		sb.Grow(len(s))
		for _, r := range s {
			if b.clean {
				switch cleanClass(r) {
				case cleanDrop:
					continue
				case cleanSpace:
					sb.WriteByte(' ')
					continue
				}
			}
			if b.chinese && isChinese(r) {
				sb.WriteByte(' ')
				sb.WriteRune(r)
				sb.WriteByte(' ')
				continue
			}
			sb.WriteRune(r)
		}
		s = sb.String()
	}
	if b.strip {
		s = stripAccents(s)
	}
	if b.lower {
		s = lowercase(s)
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (b bertNormalizer) normalizeASCII(s string) string {
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (b.lower && 'A' <= c && c <= 'Z') || (b.clean && (c < 0x20 || c == 0x7f)) {
			changed = true
			break
		}
	}
	if !changed {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case b.clean && (c == '\t' || c == '\n' || c == '\r'):
			c = ' '
		case b.clean && (c < 0x20 || c == 0x7f): // control characters, NUL included
			continue
		case b.lower && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// lowercase maps every character to its full lowercase (Rust's
// char::to_lowercase, without context), as Hugging Face's tables have it.
func lowercase(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		if l, ok := lookup(hfLower, hfLowerMin, r); ok {
			sb.WriteString(l)
			continue
		}
		sb.WriteString(goLower(r))
	}
	return sb.String()
}

func goLower(r rune) string {
	if r == 'İ' {
		return "i\u0307"
	}
	return string(unicode.ToLower(r))
}

// stripAccents is NFD followed by dropping non-spacing marks, with the
// characters whose result differs under Hugging Face's tables replaced by
// that result.
func stripAccents(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	start := 0
	for i, r := range s {
		if o, ok := lookup(hfStrip, hfStripMin, r); ok {
			sb.WriteString(goStrip(s[start:i]))
			sb.WriteString(o)
			start = i + utf8.RuneLen(r)
		}
	}
	sb.WriteString(goStrip(s[start:]))
	return sb.String()
}

func goStrip(s string) string {
	return dropNonspacingMarks(norm.NFD.String(s))
}

func dropNonspacingMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

// What clean_text does to a character.
const (
	cleanKeep = iota
	cleanDrop
	cleanSpace
)

func cleanClass(r rune) int {
	if c, ok := lookup(hfClean, hfCleanMin, r); ok {
		return int(c)
	}
	return goCleanClass(r)
}

// goCleanClass is BertNormalizer's clean_text under Go's tables: drop NUL,
// U+FFFD and the Other categories Cc, Cf, Co and Cs (Hugging Face's table of
// unassigned code points is empty, so Cn stays), except tab, newline and
// carriage return; map whitespace to a space.
func goCleanClass(r rune) int {
	switch {
	case r == 0 || r == utf8.RuneError:
		return cleanDrop
	case r == '\t' || r == '\n' || r == '\r':
		return cleanSpace
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
		return cleanDrop
	case unicode.IsSpace(r):
		return cleanSpace
	}
	return cleanKeep
}

// isChinese reports the CJK ideograph blocks BERT puts spaces around.
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// What BertPreTokenizer does with a character.
const (
	preWord = iota
	preSpace
	prePunct
)

func preClass(r rune) int {
	if r < utf8.RuneSelf {
		return asciiPre[r]
	}
	if c, ok := lookup(hfPre, hfPreMin, r); ok {
		return int(c)
	}
	return goPreClass(r)
}

var asciiPre = func() (t [utf8.RuneSelf]int) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = goPreClass(r)
	}
	return t
}()

// goPreClass is BertPreTokenizer under Go's tables: split on White_Space,
// isolate ASCII punctuation (which includes symbols such as $ + < = > ^ ` |
// ~) and the Unicode punctuation categories.
func goPreClass(r rune) int {
	switch {
	case unicode.IsSpace(r):
		return preSpace
	case r < utf8.RuneSelf && ((r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')):
		return prePunct
	case unicode.IsPunct(r):
		return prePunct
	}
	return preWord
}

// isWhitespace is the whitespace test for added tokens' lstrip and rstrip.
func isWhitespace(r rune) bool { return preClass(r) == preSpace }

// The smallest character of each override table: text below it (Latin,
// Greek, Cyrillic, …) never needs the map lookup.
var (
	hfCleanMin = minKey(hfClean)
	hfStripMin = minKey(hfStrip)
	hfLowerMin = minKey(hfLower)
	hfPreMin   = minKey(hfPre)
)

func minKey[V any](m map[rune]V) rune {
	lo := rune(unicode.MaxRune + 1)
	for r := range m {
		lo = min(lo, r)
	}
	return lo
}

func lookup[V any](m map[rune]V, lo, r rune) (V, bool) {
	if r < lo {
		var zero V
		return zero, false
	}
	v, ok := m[r]
	return v, ok
}
