package chunk

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// lineBytes is the length of line l with its newline.
func (f *file) lineBytes(l int) int { return f.lineEnd(l) - f.lineStart[l] + 1 }

// fits reports whether lines (a chunk's, in order) are within
// opt.MaxChunkLines and opt.MaxChunkBytes. Lines count as the chunk's text
// has them: a module or class chunk spans the lines of the chunks cut out
// of it, but they are not its size.
func (f *file) fits(lines []int, opt Options) bool {
	if len(lines) == 0 {
		return true
	}
	if opt.MaxChunkLines > 0 && len(lines) > opt.MaxChunkLines {
		return false
	}
	if opt.MaxChunkBytes > 0 {
		size := 0
		for _, l := range lines {
			if size += f.lineBytes(l); size > opt.MaxChunkBytes+1 { // the last newline is not text
				return false
			}
		}
	}
	return true
}

// Cut preferences, best first (see Options.MaxChunkLines).
const (
	cutNone      = iota
	cutLimit     // at the limit: nothing better in the window
	cutStructure // where a comment ends and code starts, or at a hole a member left
	cutParagraph // at a blank line or a bare comment line
)

// cutChunk splits lines (one chunk's, in order) into parts within
// opt.MaxChunkLines and opt.MaxChunkBytes, each part as long as it can be
// while its cut falls at the best boundary of the second half of its
// window. A cut never goes inside a function the syntax tree holds that
// is not the chunk itself and fits the limits (one the chunker could not
// cut out of a module chunk keeps its text whole: a RepoQA needle stays in
// one chunk). Blank lines at the edges of a part are dropped. A chunk that
// fits is returned as it is; st counts the cuts.
func (f *file) cutChunk(lines []int, opt Options, st *Counts) [][]int {
	if (opt.MaxChunkLines <= 0 && opt.MaxChunkBytes <= 0) || f.fits(lines, opt) {
		return [][]int{lines}
	}
	var parts [][]int
	inside := f.insideDef(lines, opt) // over the whole chunk: its own definition is no veto
	for len(lines) > 0 {
		// n: the longest prefix within both limits (at least one line).
		n, size := 0, 0
		for n < len(lines) {
			b := f.lineBytes(lines[n])
			over := opt.MaxChunkLines > 0 && n+1 > opt.MaxChunkLines ||
				opt.MaxChunkBytes > 0 && size+b > opt.MaxChunkBytes+1
			if n > 0 && over {
				break
			}
			size += b
			n++
		}
		cut := n
		if n < len(lines) {
			best := cutNone
			for k := n; k > n/2 && best < cutParagraph; k-- { // cut before lines[k]
				if q := f.cutQuality(lines[k-1], lines[k]); q > best && !inside(lines[k]) {
					best, cut = q, k
				}
			}
			for k := n / 2; k > 0 && best == cutNone; k-- { // a definition fills the second half
				if !inside(lines[k]) {
					best, cut = cutLimit, k
				}
			}
			if best == cutNone { // a function longer than the limits (KeepFunctions): after it
				for cut = n + 1; cut < len(lines) && inside(lines[cut]); cut++ {
				}
			}
		}
		if part := f.trimBlank(lines[:cut]); len(part) > 0 {
			parts = append(parts, part)
		}
		lines = lines[cut:]
	}
	if len(parts) > 1 {
		st.Cut++
		st.Parts += len(parts)
	}
	return parts
}

// cutQuality rates a cut between lines prev and next of a chunk.
func (f *file) cutQuality(prev, next int) int {
	switch {
	case f.blank(next) || f.blank(prev) || f.bareComment(next):
		return cutParagraph
	case next != prev+1:
		return cutStructure // a member's lines were here
	case f.commentLine(prev) && !f.commentLine(next):
		return cutStructure
	}
	return cutLimit
}

// line returns line l's text without surrounding space.
func (f *file) line(l int) string {
	return strings.TrimSpace(string(f.src[f.lineStart[l]:f.lineEnd(l)]))
}

// commentLine tells lexically (no syntax tree: a file that fell back has
// none) whether line l is a comment line.
func (f *file) commentLine(l int) bool { return isCommentLine(f.line(l)) }

// bareComment tells whether line l is a comment marker alone ("//", "#",
// "*", "///", "--"): a paragraph break inside a comment.
func (f *file) bareComment(l int) bool {
	t := f.line(l)
	return t != "" && strings.Trim(t, "/#*-;!") == ""
}

// insideDef returns whether a cut before line l would go inside a function
// of the syntax tree that lies within lines (the chunk being cut), is
// shorter than it and fits the limits (any length with KeepFunctions). A
// file without a tree has none.
func (f *file) insideDef(lines []int, opt Options) func(l int) bool {
	if f.root == nil {
		return func(int) bool { return false }
	}
	if f.defs == nil {
		f.defs = [][2]int{}
		f.collectDefs(f.root)
	}
	in := make(map[int]bool, len(lines))
	for _, l := range lines {
		in[l] = true
	}
	var spans [][2]int
	for _, d := range f.defs {
		s, e := d[0], d[1]
		if !in[s] || !in[e] || e-s+1 >= len(lines) {
			continue
		}
		if opt.MaxChunkLines > 0 && e-s+1 > opt.MaxChunkLines && !opt.KeepFunctions {
			continue
		}
		if opt.MaxChunkBytes > 0 && f.lineStart[e]-f.lineStart[s]+f.lineBytes(e) > opt.MaxChunkBytes+1 && !opt.KeepFunctions {
			continue
		}
		spans = append(spans, d)
	}
	return func(l int) bool {
		for _, d := range spans {
			if d[0] < l && l <= d[1] {
				return true
			}
		}
		return false
	}
}

// collectDefs records the line span of every function under n.
func (f *file) collectDefs(n *sitter.Node) {
	cnt := n.NamedChildCount()
	for i := uint(0); i < cnt; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		if d, ok := f.classify(c); ok && d.role == roleFunction {
			sb, eb := int(d.outer.StartByte()), int(d.outer.EndByte())
			if eb > sb {
				f.defs = append(f.defs, [2]int{f.lineOf(sb), f.lineOf(eb - 1)})
			}
		}
		f.collectDefs(c)
	}
}
