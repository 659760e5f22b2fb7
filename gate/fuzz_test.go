package gate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the files of
// testdata/ among them).

// FuzzCompare runs the gate on arbitrary benchmark files, each against
// itself and against a fixed base file: no panic, every input error is
// ErrBadInput naming a file, and a file compared with itself never fails
// the gate.
func FuzzCompare(f *testing.F) {
	f.Add([]byte("goos: linux\nBenchmarkX-2 \t 10\t 100 ns/op\t 0.5 hit@10\n"))
	base := []byte("BenchmarkX-2 \t 10\t 100 ns/op\nBenchmarkX-2 \t 10\t 101 ns/op\nBenchmarkX-2 \t 10\t 99 ns/op\n")
	f.Fuzz(func(t *testing.T, in []byte) {
		named := func(err error) {
			if !errors.Is(err, ErrBadInput) && !strings.Contains(err.Error(), "old") && !strings.Contains(err.Error(), "new") {
				t.Fatalf("error %q is neither ErrBadInput nor names a file", err)
			}
		}
		rep, err := Compare(bytes.NewReader(in), bytes.NewReader(in), "old", "new", DefaultConfig())
		if err != nil {
			named(err)
		} else if rep.Failed() {
			t.Errorf("a file compared with itself fails the gate:\n%s", in)
		}
		if _, err := Compare(bytes.NewReader(base), bytes.NewReader(in), "old", "new", DefaultConfig()); err != nil {
			named(err)
		}
	})
}
