// Package datafile opens data files — the data pack's for the dataset
// loaders, results and golden files for their readers: a file may be stored
// as is or gzipped (name.gz), and is read whole, line by line with 1-based
// line numbers for file:line errors, or as one strict JSON value.
package datafile

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// Find returns name or name.gz, whichever exists (name first).
func Find(name string) (string, error) {
	for _, f := range []string{name, name + ".gz"} {
		if _, err := os.Stat(f); err == nil {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: not found (nor %s.gz)", name, filepath.Base(name))
}

// Open opens file, gunzipped when its name ends in .gz. Closing the result
// closes the file.
func Open(file string) (io.ReadCloser, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(file, ".gz") {
		return f, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return gzFile{gz, f}, nil
}

// gzFile reads the gunzipped stream and closes both it and the file.
type gzFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzFile) Close() error {
	return errors.Join(g.Reader.Close(), g.f.Close())
}

// ReadAll returns the (gunzipped) content of file.
func ReadAll(file string) ([]byte, error) {
	r, err := Open(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return b, nil
}

// EachLine calls fn for each line of file (gunzipped when it ends in .gz)
// that is not blank, with its 1-based number; b keeps its line ending. It
// stops at the first error fn returns and returns it unchanged; a read error
// is returned as file:line: err.
func EachLine(file string, fn func(line int, b []byte) error) error {
	r, err := Open(file)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(b))) > 0 {
			if ferr := fn(line, b); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &fileline.Error{File: file, Line: line, Err: err}
		}
	}
}
