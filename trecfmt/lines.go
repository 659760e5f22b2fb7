package trecfmt

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// maxLine is the longest line a TREC reader accepts.
const maxLine = 1 << 20

// lineReader yields the content lines of a TREC file (not blank, not a '#'
// comment) split into whitespace-separated fields, reusing its buffers.
type lineReader struct {
	sc     *bufio.Scanner
	name   string
	line   int
	fields [][]byte
	err    error
}

func newLineReader(r io.Reader, name string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lineReader{sc: sc, name: name, fields: make([][]byte, 0, 8)}
}

// next advances to the next content line; fields holds its fields.
func (l *lineReader) next() bool {
	if l.err != nil {
		return false
	}
	for l.sc.Scan() {
		l.line++
		b := l.sc.Bytes()
		l.fields = splitFields(l.fields[:0], b)
		if len(l.fields) == 0 || l.fields[0][0] == '#' {
			continue
		}
		return true
	}
	if err := l.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			l.err = syntaxErrorf(l.name, l.line+1, "line longer than %d bytes", maxLine)
		} else {
			l.err = err
		}
	}
	return false
}

// splitFields appends the whitespace-separated fields of b to dst.
func splitFields(dst [][]byte, b []byte) [][]byte {
	i := 0
	for i < len(b) {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		start := i
		// Most bytes of a field are above ' ', below which are all the
		// white space bytes: one comparison for them.
		for i < len(b) && (b[i] > ' ' || !isSpace(b[i])) {
			i++
		}
		if i > start {
			dst = append(dst, b[start:i])
		}
	}
	return dst
}

// spaces marks the bytes C's isspace accepts in the "C" locale.
var spaces = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true, '\n': true}

func isSpace(c byte) bool { return spaces[c] }

// splitInto splits line at white space into f, returning the number of
// fields; false when line has more fields than f holds.
func splitInto(line string, f []string) (int, bool) {
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && spaces[line[i]] {
			i++
		}
		start := i
		for i < len(line) && !spaces[line[i]] {
			i++
		}
		if i > start {
			if n == len(f) {
				return n, false
			}
			f[n] = line[start:i]
			n++
		}
	}
	return n, true
}

// interner returns one shared string per distinct byte sequence.
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// stringInterner returns one shared copy per distinct string.
type stringInterner map[string]string

func (in stringInterner) get(s string) string {
	if c, ok := in[s]; ok {
		return c
	}
	c := strings.Clone(s)
	in[c] = c
	return c
}

// lastInterner interns like interner but first compares with the previous
// value, which in a run file is almost always the same (query id, Q0, tag).
type lastInterner struct {
	in   interner
	last string
}

func (l *lastInterner) get(b []byte) string {
	if string(b) == l.last {
		return l.last
	}
	l.last = l.in.get(b)
	return l.last
}

// validID reports whether s can be written as a field of a TREC line.
func validID(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\r\n\v\f")
}

// validQID reports whether s can be written as the first field of a TREC
// line: a valid id that does not make the line a comment.
func validQID(s string) bool { return validID(s) && s[0] != '#' }
