package benchtest

import (
	"flag"
	"regexp"
	"strings"
)

// selection says which tests go test's -run and -skip patterns select,
// by the testing package's rules: a pattern splits at top-level "|" into
// alternatives and each alternative at "/" (outside brackets and
// parentheses) into one unanchored regexp per level of the test name.
// -run selects a name when, for some alternative, every level the name and
// the pattern both have matches; -skip removes a name when some
// alternative matches all its levels. It is the one matcher of go test's
// patterns: the plan (matrix.NewPlan's Selected) asks it which cells a run
// selects, before any runs, to deal only those to the shards and to count
// only those ("cell 2 of 5" under -run, not "of 60"). The testing package
// offers no way to ask (docs/ARCHITECTURE.md, Decisions: "One plan, one
// matcher of -run"), so TestSelectionMatchesGoTest holds it to what go
// test runs.
type selection struct {
	run, skip [][]*regexp.Regexp // alternatives × levels; nil: no pattern
}

// testSelection reads -test.run and -test.skip: which tests a run
// selects. TestSelectionMatchesGoTest checks it against the testing
// package itself, pattern by pattern.
func testSelection() selection { return selectionOf("test.run") }

// benchSelection reads -test.bench and -test.skip, as testSelection does
// -test.run: which benchmarks a run selects.
func benchSelection() selection { return selectionOf("test.bench") }

// selectionOf reads the pattern flag (test.run or test.bench) and
// -test.skip. A pattern that does not compile (go test has already refused
// it) selects everything.
func selectionOf(pattern string) selection {
	get := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	run, err1 := compilePattern(get(pattern))
	skip, err2 := compilePattern(get("test.skip"))
	if err1 != nil || err2 != nil {
		return selection{}
	}
	return selection{run: run, skip: skip}
}

func compilePattern(p string) ([][]*regexp.Regexp, error) {
	if p == "" {
		return nil, nil
	}
	var alts [][]*regexp.Regexp
	for _, alt := range splitTopLevel(p, '|') {
		var levels []*regexp.Regexp
		for _, level := range splitTopLevel(alt, '/') {
			re, err := regexp.Compile(level)
			if err != nil {
				return nil, err
			}
			levels = append(levels, re)
		}
		alts = append(alts, levels)
	}
	return alts, nil
}

// splitTopLevel splits s at sep where sep is outside brackets and
// parentheses and not escaped.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, inClass, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// runs reports whether the test of the full name (levels joined by "/")
// runs under the selection.
func (s selection) runs(name string) bool {
	levels := strings.Split(name, "/")
	if s.run != nil && !anyAlt(s.run, levels, false) {
		return false
	}
	return s.skip == nil || !anyAlt(s.skip, levels, true)
}

// anyAlt reports whether some alternative matches levels: every level both
// have, and with whole, every level of the pattern too.
func anyAlt(alts [][]*regexp.Regexp, levels []string, whole bool) bool {
	for _, alt := range alts {
		if whole && len(levels) < len(alt) {
			continue
		}
		ok := true
		for i, re := range alt {
			if i >= len(levels) {
				break
			}
			if !re.MatchString(levels[i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
