package external

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/systems"
)

// payload is what one call returned: MCP structuredContent (nil if none)
// and the text (stdout, an HTTP body, or the MCP text content joined by
// newlines).
type payload struct {
	structured any
	text       string
	stderr     string // the redacted tail of the process's stderr, for errors
}

// value returns the result as JSON: the structured content, else the text
// parsed as JSON.
func (p payload) value() (any, error) {
	if p.structured != nil {
		return p.structured, nil
	}
	return parseJSON(p.text)
}

func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("result is not JSON: %v (starts %q)", err, snippet(s))
	}
	if dec.More() {
		return nil, fmt.Errorf("result is not one JSON value: data after it (starts %q)", snippet(s))
	}
	return v, nil
}

// snippet is the start of s for an error message.
func snippet(s string) string { return snippetN(s, 120) }

// snippetN is the first n bytes of s, trimmed.
func snippetN(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lookup follows a dotted path ("results.0.id") through objects and
// arrays; "" is v itself.
func lookup(v any, dotted string) (any, bool) {
	if dotted == "" {
		return v, true
	}
	for _, key := range strings.Split(dotted, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// scalar returns a string, number or boolean as text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

const capturePrefixRE = "re:"

func checkCapture(expr string) error {
	if re, ok := strings.CutPrefix(expr, capturePrefixRE); ok {
		_, err := regexp.Compile(re)
		return err
	}
	return nil
}

// capture evaluates a capture expression on a call's result: "re:REGEXP"
// on its text (the first group if the regexp has one, else the match),
// otherwise a dotted path into its JSON that must name a scalar.
func capture(p payload, expr string) (string, error) {
	if re, ok := strings.CutPrefix(expr, capturePrefixRE); ok {
		m := regexp.MustCompile(re).FindStringSubmatch(p.text)
		switch {
		case m == nil:
			return "", fmt.Errorf("regexp %q matches nothing in the result (starts %q)", re, snippet(p.text))
		case len(m) > 1:
			return m[1], nil
		}
		return m[0], nil
	}
	v, err := p.value()
	if err != nil {
		return "", err
	}
	x, ok := lookup(v, expr)
	if !ok {
		return "", fmt.Errorf("%q is not in the result", expr)
	}
	s, ok := scalar(x)
	if !ok {
		return "", fmt.Errorf("%q is %s, want a string or number", expr, kindOf(x))
	}
	return s, nil
}

// checkItemRegex reports a result.item_regex that does not compile, has a
// named group that is not a field, or names neither a path nor a symbol.
func checkItemRegex(s string) error {
	if s == "" {
		return fmt.Errorf("missing (from %q splits the text where this regexp matches)", FromText)
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return err
	}
	located := false
	for _, g := range re.SubexpNames()[1:] {
		switch {
		case g == "":
		case !slices.Contains(itemGroups, g):
			return fmt.Errorf("named group %q: want one of %s", g, strings.Join(itemGroups, ", "))
		case g == "path" || g == "symbol" || g == "doc_id":
			located = true
		}
	}
	if !located {
		return fmt.Errorf("no (?P<path>…), (?P<symbol>…) or (?P<doc_id>…) group: the items would name nothing")
	}
	return nil
}

// textItems splits text into items, one per match of re, each running from
// its match to the next: the named groups of the match are its fields and
// the whole stretch, trimmed, its text.
func textItems(re *regexp.Regexp, text string) []any {
	ms := re.FindAllStringSubmatchIndex(text, -1)
	items := make([]any, 0, len(ms))
	for i, m := range ms {
		end := len(text)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		it := map[string]any{"text": strings.TrimSpace(text[m[0]:end])}
		for g, name := range re.SubexpNames() {
			if name != "" && m[2*g] >= 0 {
				it[name] = text[m[2*g]:m[2*g+1]]
			}
		}
		items = append(items, it)
	}
	return items
}

// textSpec maps the items of textItems.
var textSpec = ResultSpec{Path: "path", StartLine: "start_line", EndLine: "end_line", Symbol: "symbol", Score: "score", Text: "text", DocID: "doc_id"}

// mapping turns a payload into hits according to a ResultSpec.
type mapping struct {
	spec  ResultSpec
	re    *regexp.Regexp // result.item_regex, compiled
	strip string         // strip_prefix expanded
	dirs  []string       // the corpus directory, as given and resolved
	red   *redactor
}

// hits maps p to at most k hits. outside counts hits whose path lies
// outside the corpus: they keep their rank (so a wrong answer still costs
// its place) but lose path, lines and symbol, and so match no gold.
func (m *mapping) hits(p payload, k int) (hits []systems.Hit, outside int, err error) {
	if m.spec.From == FromBlob {
		if strings.TrimSpace(p.text) == "" || k <= 0 {
			return nil, 0, nil
		}
		return []systems.Hit{{Text: m.red.String(p.text)}}, 0, nil
	}
	if m.spec.From == FromText {
		return m.list(textItems(m.re, p.text), textSpec, k)
	}
	var v any
	if m.spec.From == FromStructured {
		if p.structured == nil {
			return nil, 0, fmt.Errorf("result has no structuredContent (result.from %q; use %q for JSON text)", FromStructured, FromJSON)
		}
		v = p.structured
	} else if v, err = parseJSON(p.text); err != nil {
		return nil, 0, err
	}
	list, ok := lookup(v, m.spec.Items)
	if !ok {
		return nil, 0, fmt.Errorf("result.items %q is not in the result", m.spec.Items)
	}
	if list == nil {
		return nil, 0, nil // "results": null is an empty answer
	}
	items, ok := list.([]any)
	if !ok {
		return nil, 0, fmt.Errorf("result.items %q is %s, want a list", m.spec.Items, kindOf(list))
	}
	return m.list(items, m.spec, k)
}

// list maps at most k items with the field paths of spec.
func (m *mapping) list(items []any, spec ResultSpec, k int) (hits []systems.Hit, outside int, err error) {
	for i, it := range items {
		if len(hits) >= k {
			break
		}
		h, in, err := m.hit(it, spec)
		if err != nil {
			return nil, 0, fmt.Errorf("item %d: %w", i, err)
		}
		if !in {
			outside++
		}
		hits = append(hits, h)
	}
	return hits, outside, nil
}

func (m *mapping) hit(it any, spec ResultSpec) (h systems.Hit, inside bool, err error) {
	str := func(field, dotted string) (string, error) {
		if dotted == "" {
			return "", nil
		}
		x, ok := lookup(it, dotted)
		if !ok || x == nil {
			return "", nil
		}
		s, ok := scalar(x)
		if !ok {
			return "", fmt.Errorf("result.%s %q is %s, want a string", field, dotted, kindOf(x))
		}
		return s, nil
	}
	num := func(field, dotted string) (float64, error) {
		s, err := str(field, dotted)
		if err != nil || s == "" {
			return 0, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("result.%s %q is %q, want a finite number", field, dotted, s)
		}
		return f, nil
	}
	optNum := func(field, dotted string) (*float64, error) {
		if s, err := str(field, dotted); err != nil || s == "" {
			return nil, err
		}
		f, err := num(field, dotted)
		return &f, err
	}
	var p string
	var start, end *float64
	if p, err = str("path", spec.Path); err != nil {
		return h, false, err
	}
	if h.Symbol, err = str("symbol", spec.Symbol); err != nil {
		return h, false, err
	}
	if h.Text, err = str("text", spec.Text); err != nil {
		return h, false, err
	}
	if h.DocID, err = str("doc_id", spec.DocID); err != nil {
		return h, false, err
	}
	if start, err = optNum("start_line", spec.StartLine); err != nil {
		return h, false, err
	}
	if end, err = optNum("end_line", spec.EndLine); err != nil {
		return h, false, err
	}
	if h.Score, err = num("score", spec.Score); err != nil {
		return h, false, err
	}
	// A secret can come back in any field a tool fills: the text, the
	// symbol and the path are all written to results and pooled sheets.
	h.Text, h.Symbol, h.DocID = m.red.String(h.Text), m.red.String(h.Symbol), m.red.String(h.DocID)
	if h.StartLine, h.EndLine, err = m.lines(spec, start, end); err != nil {
		return h, false, err
	}
	if p == "" {
		return h, true, nil
	}
	if m.strip != "" {
		p = strings.TrimPrefix(p, m.strip)
	}
	rel, ok := relPath(m.dirs, p)
	if !ok {
		return systems.Hit{DocID: h.DocID, Score: h.Score, Text: h.Text}, false, nil
	}
	h.Path = m.red.String(rel)
	return h, true, nil
}

// lines turns an item's start and end lines (nil: absent) into 1-based
// ones with result.line_base. A line that is not a whole number at or above
// the base, or an end before the start, is an error: dropping it would
// change what the hit covers without saying so.
func (m *mapping) lines(spec ResultSpec, start, end *float64) (int, int, error) {
	base := m.spec.lineBase()
	conv := func(field string, x *float64) (int, error) {
		if x == nil {
			return 0, nil
		}
		if *x != math.Trunc(*x) || *x < float64(base) || *x >= 1e9 {
			return 0, fmt.Errorf("result.%s is %v: not a line number counted from %d (result.line_base: %d)", field, *x, base, base)
		}
		return int(*x) - base + 1, nil
	}
	s, err := conv("start_line", start)
	if err != nil {
		return 0, 0, err
	}
	e, err := conv("end_line", end)
	if err != nil {
		return 0, 0, err
	}
	if s > 0 && e > 0 && e < s {
		return 0, 0, fmt.Errorf("reversed line range %v-%v (result.start_line, result.end_line)", *start, *end)
	}
	return s, e, nil
}

// joinText joins the text of MCP content items.
func joinText(texts []string) string {
	var b bytes.Buffer
	for i, t := range texts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}
