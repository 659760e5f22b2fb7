package gate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// key identifies one compared sample: a full benchmark name and a tidied unit.
type key struct {
	Name string
	Unit string
}

// maxSyntaxErrors bounds how many bad lines one error message lists.
const maxSyntaxErrors = 10

// fileSamples is what one benchmark file contributed.
type fileSamples struct {
	values map[key][]float64
	pkg    map[string]string // benchmark name -> pkg: it was read under
	pos    map[string]string // benchmark name -> "file:line" of its first result
}

// readFile reads one benchmark file into samples. rd is shared across the
// two files so that unit metadata accumulates, as benchstat does, and a
// conflicting re-declaration is reported as a syntax error.
//
// Any malformed line is an error (a gate that skipped lines could miss a
// regression), and so is a file with no benchmark results at all, which is
// what a build failure or a crashed benchmark run produces.
func readFile(rd *benchfmt.Reader, r io.Reader, name string) (*fileSamples, error) {
	rd.Reset(r, name)
	fs := &fileSamples{
		values: make(map[key][]float64),
		pkg:    make(map[string]string),
		pos:    make(map[string]string),
	}
	var bad []string
	nBad := 0
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			nBad++
			if len(bad) < maxSyntaxErrors {
				bad = append(bad, rec.Error())
			}
		case *benchfmt.Result:
			file, line := rec.Pos()
			bench := rec.Name.String()
			pkg := rec.GetConfig("pkg")
			if prev, ok := fs.pkg[bench]; !ok {
				fs.pkg[bench] = pkg
				fs.pos[bench] = fmt.Sprintf("%s:%d", file, line)
			} else if prev != pkg {
				// Grouping is by name alone, so the same name in two
				// packages would silently merge two different samples.
				nBad++
				if len(bad) < maxSyntaxErrors {
					bad = append(bad, fmt.Sprintf("%s:%d: benchmark %s in package %q was already seen in package %q at %s; rename one of them",
						file, line, bench, pkg, prev, fs.pos[bench]))
				}
				continue
			}
			for _, v := range rec.Values {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
					nBad++
					if len(bad) < maxSyntaxErrors {
						bad = append(bad, fmt.Sprintf("%s:%d: %s: value %v %s is not finite", file, line, bench, v.Value, v.Unit))
					}
					continue
				}
				k := key{bench, v.Unit}
				fs.values[k] = append(fs.values[k], v.Value)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if nBad > 0 {
		msg := strings.Join(bad, "\n")
		if nBad > len(bad) {
			msg += fmt.Sprintf("\n… and %d more", nBad-len(bad))
		}
		return nil, fmt.Errorf("%w in %s (%d):\n%s", ErrBadInput, name, nBad, msg)
	}
	if len(fs.values) == 0 {
		return nil, fmt.Errorf("%w: %s has no benchmark results", ErrBadInput, name)
	}
	return fs, nil
}

// ErrBadInput marks input that could not be read as benchmark results:
// malformed lines, conflicting unit metadata, or no results at all.
var ErrBadInput = errors.New("bad benchmark input")
