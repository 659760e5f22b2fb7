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
	return nil, fmt.Errorf("normalizer type %q is not supported (BertNormalizer, Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Sequence)", n.Type)
}

func checkPreTokenizer(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("no pre_tokenizer (only BertPreTokenizer is supported)")
	}
	var p struct {
		Type          string            `json:"type"`
		PreTokenizers []json.RawMessage `json:"pretokenizers"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch {
	case p.Type == "BertPreTokenizer":
		return nil
	case p.Type == "Sequence" && len(p.PreTokenizers) == 1:
		return checkPreTokenizer(p.PreTokenizers[0])
	}
	return fmt.Errorf("pre_tokenizer type %q is not supported (only BertPreTokenizer)", p.Type)
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
				if r == 0 || r == utf8.RuneError || isControl(r) {
					continue
				}
				if isWhitespace(r) {
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
		s = dropNonspacingMarks(norm.NFD.String(s))
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
// char::to_lowercase, without context): only U+0130 maps to two.
func lowercase(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		if r == 'İ' {
			sb.WriteString("i\u0307")
			continue
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}

func dropNonspacingMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

// isWhitespace is BertNormalizer's: tab, newline, carriage return and the
// Unicode White_Space property.
func isWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

// isControl is BertNormalizer's: the Other categories Cc, Cf, Co and Cs
// except tab, newline and carriage return (Hugging Face's table of
// unassigned code points is empty, so Cn is not removed).
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
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

// isPunct is BertPreTokenizer's: ASCII punctuation (which includes symbols
// such as $ + < = > ^ ` | ~) and the Unicode punctuation categories.
func isPunct(r rune) bool {
	if r < 0x80 {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r)
}
