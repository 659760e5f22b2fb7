package trecfmt

import (
	"fmt"
	"os"
	"path/filepath"
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

// writeFileAtomic writes path through a temporary file in the same directory
// that is renamed over path only when write and the close succeed.
func writeFileAtomic(path string, write func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return nil
}
