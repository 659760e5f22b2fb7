// Package fileline is the error every reader of the module returns for bad
// input: where (file, line, and a column where one helps) and what is wrong
// there, printing as "file:line: problem". It is a leaf (standard library
// only), like x/perf's benchfmt.SyntaxError, so a caller can find the place
// of any loader's, format reader's or config file's complaint with
// errors.As, whatever wraps it:
//
//	var fe *fileline.Error
//	if errors.As(err, &fe) {
//		jumpTo(fe.File, fe.Line)
//	}
package fileline

import (
	"fmt"
	"strconv"
)

// Error is bad input at a place in a file.
type Error struct {
	File string // as given to the reader; "" when unknown
	Line int    // 1-based; 0 when unknown
	Col  int    // 1-based; 0 when unknown or not useful
	Msg  string // the problem; when empty, Err's text stands in
	Err  error  // the cause, for errors.Is and errors.As (e.g. a sentinel, a JSON error)
}

// Error prints "file:line[:col]: msg"; the parts that are unknown are left
// out ("file: msg" without a line).
func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	pos := e.File
	if e.Line > 0 {
		if pos == "" {
			pos = "line " + strconv.Itoa(e.Line)
		} else {
			pos += ":" + strconv.Itoa(e.Line)
		}
		if e.Col > 0 {
			pos += ":" + strconv.Itoa(e.Col)
		}
	}
	if pos == "" {
		return msg
	}
	return pos + ": " + msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error at file:line whose message is formatted as by
// fmt.Errorf, so a %w verb makes its operand the cause (two or more %w make
// the formatted error the cause, which unwraps to each of them).
func Errorf(file string, line int, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{File: file, Line: line, Msg: err.Error()}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		e.Err = u.Unwrap()
	case interface{ Unwrap() []error }:
		e.Err = err
	}
	return e
}
