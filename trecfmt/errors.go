package trecfmt

import (
	"fmt"
)

// SyntaxError is bad input at a line of a file.
type SyntaxError struct {
	File string // as given to the reader
	Line int    // 1-based
	Msg  string
	Err  error // underlying cause, if any (e.g. ErrNotGrouped)
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

func syntaxErrorf(file string, line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}
