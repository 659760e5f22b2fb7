package cases

import (
	"fmt"
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

func isDocFile(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".rst")
}

// heading is one heading line (0-based index of its first line).
type heading struct {
	line int
	text string
}

// headings finds Markdown ATX headings outside code fences and
// reStructuredText titles (a text line followed by an underline, with an
// optional overline).
func headings(text string) []heading {
	lines := strings.Split(text, "\n")
	var hs []heading
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := mdHeadingRE.FindStringSubmatch(l); m != nil {
			hs = append(hs, heading{i, m[1]})
			continue
		}
		if i > 0 && rstUnderline(l) && t != "" && strings.TrimSpace(lines[i-1]) != "" && !rstUnderline(lines[i-1]) {
			start := i - 1
			if start > 0 && rstUnderline(lines[start-1]) {
				start-- // overline
			}
			hs = append(hs, heading{start, strings.TrimSpace(lines[i-1])})
		}
	}
	return hs
}

// sectionDocs cuts one documentation file into section docs.
func sectionDocs(p, text string) []corpus.Doc {
	lines := strings.Split(text, "\n")
	hs := headings(text)
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
	used := map[string]int{}
	for i, h := range hs {
		end := len(lines)
		if i+1 < len(hs) {
			end = hs[i+1].line
		}
		s := slug(h.text)
		if n := used[s]; n > 0 {
			used[s] = n + 1
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			used[s] = 1
		}
		add(p+"#"+s, h.text, h.line, end)
	}
	return docs
}
