package trecfmt

import (
	"github.com/retrievalbench/retrievalbench/fileline"
)

// SyntaxError is bad input at a line of a file: the module's one position
// error, fileline.Error (File, Line, Msg, and Err, the underlying cause if
// any, e.g. ErrNotGrouped), so errors.As with either name finds it.
type SyntaxError = fileline.Error

func syntaxErrorf(file string, line int, format string, args ...any) *SyntaxError {
	return fileline.Errorf(file, line, format, args...)
}
