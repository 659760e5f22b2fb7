// Package mapping turns what an external system returned (a Payload: MCP
// structured content, or text: stdout, an HTTP body, MCP text content) into
// ranked systems.Hits as a config's "result" section (Spec) says, with
// corpus-relative paths, 1-based lines and secrets redacted; it also
// evaluates the captures of MCP calls.
package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
)

// Result sources.
const (
	FromStructured = "structured" // MCP structuredContent
	FromJSON       = "json"       // stdout, HTTP body or MCP text content parsed as JSON
	FromBlob       = "blob"       // the text taken whole as one composite hit
	FromText       = "text"       // the text split into items where result.item_regex matches
)

// itemGroups are the named groups result.item_regex may have.
var itemGroups = []string{"path", "start_line", "end_line", "symbol", "score", "doc_id"}

// Spec maps a result to hits. Path, StartLine, EndLine, Symbol,
// Score and Text are dotted paths into each item; Library and StripPrefix
// are templates.
type Spec struct {
	From        string `json:"from"`
	Items       string `json:"items,omitempty"`
	Path        string `json:"path,omitempty"`
	StartLine   string `json:"start_line,omitempty"`
	EndLine     string `json:"end_line,omitempty"`
	Symbol      string `json:"symbol,omitempty"`
	Score       string `json:"score,omitempty"`
	Text        string `json:"text,omitempty"`
	Library     string `json:"library,omitempty"`
	StripPrefix string `json:"strip_prefix,omitempty"`
	ItemRegex   string `json:"item_regex,omitempty"` // from "text": where each item starts; named groups are fields
	// DocID is the dotted path of a hit's document id (corpus.Doc.ID, as
	// handed over in docs.jsonl): a system that sets it can be judged on
	// collections judged by doc id.
	DocID string `json:"doc_id,omitempty"`
	// LineBase is the number the tool gives a file's first line: 1 (nil,
	// the default) or 0. Lines are made 1-based with it; a line below the
	// base is an error, never dropped.
	LineBase *int `json:"line_base,omitempty"`
}

// lineBase is result.line_base, default 1.
func (r Spec) lineBase() int {
	if r.LineBase != nil {
		return *r.LineBase
	}
	return 1
}

// Payload is what one call returned: MCP structuredContent (nil if none)
// and the text (stdout, an HTTP body, or the MCP text content joined by
// newlines).
type Payload struct {
	Structured any
	Text       string
	Stderr     string // the redacted tail of the process's stderr, for errors
}

// value returns the result as JSON: the structured content, else the text
// parsed as JSON.
func (p Payload) value() (any, error) {
	if p.Structured != nil {
		return p.Structured, nil
	}
	return parseJSON(p.Text)
}

func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("result is not JSON: %v (starts %q)", err, Snippet(s))
	}
	if dec.More() {
		return nil, fmt.Errorf("result is not one JSON value: data after it (starts %q)", Snippet(s))
	}
	return v, nil
}

// Snippet is the start of s for an error message.
func Snippet(s string) string { return SnippetN(s, 120) }

// SnippetN is the first n bytes of s, trimmed.
func SnippetN(s string, n int) string {
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

// CheckCapture reports a capture expression whose "re:" regexp does not
// compile.
func CheckCapture(expr string) error {
	if re, ok := strings.CutPrefix(expr, capturePrefixRE); ok {
		_, err := regexp.Compile(re)
		return err
	}
	return nil
}

// Capture evaluates a capture expression on a call's result: "re:REGEXP"
// on its text (the first group if the regexp has one, else the match),
// otherwise a dotted path into its JSON that must name a scalar.
func Capture(p Payload, expr string) (string, error) {
	if re, ok := strings.CutPrefix(expr, capturePrefixRE); ok {
		m := regexp.MustCompile(re).FindStringSubmatch(p.Text)
		switch {
		case m == nil:
			return "", fmt.Errorf("regexp %q matches nothing in the result (starts %q)", re, Snippet(p.Text))
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

// CheckItemRegex reports a result.item_regex that does not compile, has a
// named group that is not a field, or names neither a path nor a symbol.
func CheckItemRegex(s string) error {
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
var textSpec = Spec{Path: "path", StartLine: "start_line", EndLine: "end_line", Symbol: "symbol", Score: "score", Text: "text", DocID: "doc_id"}

// mapping turns a Payload into hits according to a Spec.
type Mapping struct {
	spec  Spec
	re    *regexp.Regexp // result.item_regex, compiled
	strip string         // strip_prefix expanded
	dirs  []string       // the corpus directory, as given and resolved
	red   *redact.Redactor
}

// New returns the mapping of spec (which Validate checked) for a corpus in
// dirs (the directory as given and with symlinks resolved): paths lose the
// prefix strip (strip_prefix, expanded) and are made relative to dirs, and
// red redacts every field a hit takes from the tool.
func New(spec Spec, strip string, dirs []string, red *redact.Redactor) *Mapping {
	m := &Mapping{spec: spec, strip: strip, dirs: dirs, red: red}
	if spec.From == FromText {
		m.re = regexp.MustCompile(spec.ItemRegex) // Validate compiled it
	}
	return m
}

// Dir is the corpus directory as given.
func (m *Mapping) Dir() string { return m.dirs[0] }

// Hits maps p to at most k hits. outside counts hits whose path lies
// outside the corpus: they keep their rank (so a wrong answer still costs
// its place) but lose path, lines and symbol, and so match no gold.
func (m *Mapping) Hits(p Payload, k int) (hits []systems.Hit, outside int, err error) {
	if m.spec.From == FromBlob {
		if strings.TrimSpace(p.Text) == "" || k <= 0 {
			return nil, 0, nil
		}
		return []systems.Hit{{Text: m.red.String(p.Text)}}, 0, nil
	}
	if m.spec.From == FromText {
		return m.list(textItems(m.re, p.Text), textSpec, k)
	}
	var v any
	if m.spec.From == FromStructured {
		if p.Structured == nil {
			return nil, 0, fmt.Errorf("result has no structuredContent (result.from %q; use %q for JSON text)", FromStructured, FromJSON)
		}
		v = p.Structured
	} else if v, err = parseJSON(p.Text); err != nil {
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
func (m *Mapping) list(items []any, spec Spec, k int) (hits []systems.Hit, outside int, err error) {
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

func (m *Mapping) hit(it any, spec Spec) (h systems.Hit, inside bool, err error) {
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
	rel, ok := RelPath(m.dirs, p)
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
func (m *Mapping) lines(spec Spec, start, end *float64) (int, int, error) {
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

// JoinText joins the text of MCP content items.
func JoinText(texts []string) string {
	var b bytes.Buffer
	for i, t := range texts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// RelPath turns the path a system reports into a corpus-relative slash
// path: a file:// URL or an absolute path under one of dirs (the corpus
// directory as given and with symlinks resolved) loses the directory; a
// relative path is cleaned. ok is false for a path outside the corpus.
func RelPath(dirs []string, p string) (rel string, ok bool) {
	p = strings.TrimPrefix(p, "file://")
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if filepath.IsAbs(p) {
		for _, dir := range dirs {
			if r, err := filepath.Rel(dir, filepath.Clean(p)); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
				return RelPath(nil, r)
			}
		}
		return "", false
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}
