package fileline

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

var errSentinel = errors.New("sentinel")

func TestError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    *Error
		want   string
		reason string
	}{
		{"file and line", &Error{File: "q.jsonl", Line: 3, Msg: "empty query"}, "q.jsonl:3: empty query", "the common case"},
		{"column", &Error{File: "c.json", Line: 2, Col: 7, Msg: "bad JSON"}, "c.json:2:7: bad JSON", "a column where one helps"},
		{"no line", &Error{File: "c.json", Msg: "x is also defined by y"}, "c.json: x is also defined by y", "a whole-file problem"},
		{"no file", &Error{Line: 4, Msg: "bad"}, "line 4: bad", "a reader given no name"},
		{"nothing known", &Error{Msg: "bad"}, "bad", ""},
		{"cause only", &Error{File: "f", Line: 1, Err: io.ErrUnexpectedEOF}, "f:1: unexpected EOF", "an empty Msg prints the cause"},
		{"msg hides cause", &Error{File: "f", Line: 9, Msg: "not grouped by query", Err: errSentinel}, "f:9: not grouped by query", "Msg already says it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q (%s)", got, tc.want, tc.reason)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	e := Errorf("runs.txt", 12, "repo %q: %w", "a/b", errSentinel)
	if got, want := e.Error(), `runs.txt:12: repo "a/b": sentinel`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("loading: %w", e)
	var fe *Error
	if !errors.As(wrapped, &fe) || fe.File != "runs.txt" || fe.Line != 12 {
		t.Fatalf("errors.As(%v) = %+v, want runs.txt:12", wrapped, fe)
	}
	if !errors.Is(wrapped, errSentinel) {
		t.Errorf("%%w operand is not the cause: errors.Is(%v, errSentinel) = false", wrapped)
	}

	two := Errorf("f", 1, "%w and %w", errSentinel, io.EOF)
	if !errors.Is(two, errSentinel) || !errors.Is(two, io.EOF) {
		t.Errorf("two %%w: %v does not unwrap to both", two)
	}
	if plain := Errorf("f", 1, "no cause %d", 5); plain.Err != nil || plain.Error() != "f:1: no cause 5" {
		t.Errorf("Errorf without %%w = %+v", plain)
	}
}

func ExampleErrorf() {
	err := fmt.Errorf("loading cases: %w", Errorf("cases.jsonl", 7, "duplicate id %q (first on line %d)", "c1", 2))
	fmt.Println(err)
	var fe *Error
	if errors.As(err, &fe) {
		fmt.Println(fe.File, fe.Line)
	}
	// Output:
	// loading cases: cases.jsonl:7: duplicate id "c1" (first on line 2)
	// cases.jsonl 7
}
