package trecfmt

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// TestSyntaxErrorIsFileline checks that the readers' errors are the
// module's shared position error, found by errors.As through wrapping.
func TestSyntaxErrorIsFileline(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func() error
		line int
	}{
		{"qrels", func() error {
			_, err := ReadQrels(strings.NewReader("q1 0 d1 1\nq1 0 d2\n"), "a.qrels")
			return err
		}, 2},
		{"run", func() error {
			_, _, err := ReadRun(strings.NewReader("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 x 1.0 t\nq1 Q0 d3 3 0.5 t\n"), "a.qrels", false)
			return err
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("loading: %w", tc.read())
			var fe *fileline.Error
			if !errors.As(err, &fe) {
				t.Fatalf("%v is not a *fileline.Error", err)
			}
			if fe.File != "a.qrels" || fe.Line != tc.line {
				t.Errorf("error at %s:%d, want a.qrels:%d (%v)", fe.File, fe.Line, tc.line, err)
			}
		})
	}
}
