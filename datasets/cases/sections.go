package cases

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Documentation files are cut into sections here, because the chunker
// keeps prose files whole and a doc_section judgment names a section: each
// Markdown (.md) or reStructuredText (.rst) file becomes one doc per
// heading, ID "path#slug" (GitHub-style slug, "-1", "-2"… for repeats),
// Kind "doc_section", Symbol = the heading text, Path and lines kept so
// file judgments still match them. Text before the first heading is a doc
// with ID = path. The harness chunks only Kind "file" docs, so these pass
// through unchanged.
//
// The two syntaxes are told apart by extension, because they disagree:
//
//   - Markdown: ATX headings ("## Title") and setext headings (a text line
//     underlined with = or -), both outside code fences (``` or ~~~, three
//     or more, closed by a fence of the same character at least as long).
//   - reStructuredText: a section title is an unindented text line
//     underlined — and optionally overlined — with a run of one adornment
//     character (any ASCII punctuation, "~" included: rST has no fences), at
//     the start of the file or after a blank line. Hyperlink targets
//     (".. _label:") directly above a title, separated by blank lines only,
//     belong to its section, so the section also answers to the label.

func isDocFile(p string) bool {
	l := strings.ToLower(p)
	return isMarkdown(l) || strings.HasSuffix(l, ".rst")
}

func isMarkdown(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// heading is one heading (0-based index of its first line, labels
// included).
type heading struct {
	line int
	text string
}

var (
	mdHeadingRE = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$`)
	mdFenceRE   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	rstLabelRE  = regexp.MustCompile(`^\.\. _([^:]+):\s*$`)
)

// headings finds the headings of a documentation file p.
func headings(p, text string) []heading {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	if isMarkdown(p) {
		return mdHeadings(lines)
	}
	return rstHeadings(lines)
}

func mdHeadings(lines []string) []heading {
	var hs []heading
	fence := ""
	for i, l := range lines {
		if m := mdFenceRE.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(l) == m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := mdHeadingRE.FindStringSubmatch(l); m != nil {
			hs = append(hs, heading{i, strings.TrimSpace(m[1])})
			continue
		}
		// Setext: a paragraph's last line underlined with = or -.
		if i > 0 && adornment(l) && (l[0] == '=' || l[0] == '-') && !strings.HasPrefix(l, " ") {
			prev := strings.TrimSpace(lines[i-1])
			if prev != "" && !adornment(lines[i-1]) && !mdHeadingRE.MatchString(lines[i-1]) && (i < 2 || strings.TrimSpace(lines[i-2]) == "") {
				hs = append(hs, heading{i - 1, prev})
			}
		}
	}
	return hs
}

func rstHeadings(lines []string) []heading {
	var hs []heading
	blank := func(i int) bool { return i < 0 || strings.TrimSpace(lines[i]) == "" }
	for i := 1; i < len(lines); i++ {
		under, title := lines[i], lines[i-1]
		if !adornment(under) || blank(i-1) || adornment(title) {
			continue
		}
		start := i - 1
		if i >= 2 && adornment(lines[i-2]) && lines[i-2][0] == under[0] {
			start = i - 2 // overline; an overlined title may be inset
		} else if title[0] == ' ' || title[0] == '\t' {
			continue // indented: a block quote or literal block, not a title
		}
		if !blank(start - 1) {
			continue // a title follows a blank line (or starts the file)
		}
		// Hyperlink targets right above the title belong to its section.
		for j := start - 1; j >= 0; j-- {
			if rstLabelRE.MatchString(lines[j]) {
				start = j
			} else if !blank(j) {
				break
			}
		}
		hs = append(hs, heading{start, strings.TrimSpace(title)})
	}
	return hs
}

// adornment reports whether l is a reStructuredText adornment line (and a
// Markdown setext underline or thematic break): three or more of one ASCII
// punctuation character, nothing else.
func adornment(l string) bool {
	l = strings.TrimRight(l, " \t\r")
	if len(l) < 3 || !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(l[0])) {
		return false
	}
	return strings.Count(l, l[:1]) == len(l)
}

// labels returns the rST hyperlink targets at the top of a section's text.
func labels(text string) []string {
	var ls []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if m := rstLabelRE.FindStringSubmatch(l); m != nil {
			ls = append(ls, m[1])
		} else if l != "" {
			break
		}
	}
	return ls
}

// sectionDocs cuts one documentation file into section docs.
func sectionDocs(p, text string) []corpus.Doc {
	lines := strings.Split(text, "\n")
	hs := headings(p, text)
	var docs []corpus.Doc
	add := func(id, sym string, from, to int) { // lines [from, to)
		body := strings.Join(lines[from:to], "\n")
		if strings.TrimSpace(body) == "" {
			return
		}
		docs = append(docs, corpus.Doc{ID: id, Path: p, Symbol: sym, Kind: "doc_section", StartLine: from + 1, EndLine: to, Text: body})
	}
	first := len(lines)
	if len(hs) > 0 {
		first = hs[0].line
	}
	add(p, "", 0, first)
	taken := map[string]bool{}
	for i, h := range hs {
		end := len(lines)
		if i+1 < len(hs) {
			end = hs[i+1].line
		}
		// A repeated slug gets the first free "-1", "-2"…; a later heading
		// whose own slug is such a name ("0 1" after "0", "0") moves on too,
		// so IDs stay unique.
		s := slug(h.text)
		for n := 1; taken[s]; n++ {
			s = fmt.Sprintf("%s-%d", slug(h.text), n)
		}
		taken[s] = true
		add(p+"#"+s, h.text, h.line, end)
	}
	return docs
}
