package benchtest

import (
	"fmt"
	"strings"
	"sync"
)

// missing counts, per top-level test, the cells of this binary that failed
// for want of a golden file, so that a first run ends with one command that
// creates them all rather than one per cell.
var missing = struct {
	sync.Mutex
	order []string       // top-level tests, in the order they first missed one
	n     map[string]int // top-level test → cells without a golden file
}{n: map[string]int{}}

func noteMissing(cell string) {
	top, _, _ := strings.Cut(cell, "/")
	missing.Lock()
	defer missing.Unlock()
	if missing.n[top] == 0 {
		missing.order = append(missing.order, top)
	}
	missing.n[top]++
}

// missingLine is what the top-level test top logs when it ends, if any
// cell of the binary so far had no golden file: the count and the one
// command that creates every missing file (-create), covering the tests
// that ran before it too, so that the binary's last such line covers all.
func (s *Suite) missingLine(top string, f *Flags) string {
	missing.Lock()
	defer missing.Unlock()
	if missing.n[top] == 0 {
		return "" // an earlier test's line covered what was missing then
	}
	total := 0
	for _, name := range missing.order {
		total += missing.n[name]
	}
	pkg := ""
	if s.Package != "" {
		pkg = " " + s.Package
	}
	return fmt.Sprintf("%d %s of this test binary %s no golden file (%d in %s); create every missing one with: go test%s -run '^(%s)$' -create%s",
		total, plural(total, "cell"), plural3(total, "has", "have"), missing.n[top], top, pkg, strings.Join(missing.order, "|"), f.hint())
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func plural3(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
