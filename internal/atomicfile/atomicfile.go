// Package atomicfile writes a file through a temporary file in the same
// directory that is renamed over it only once it is complete, so a reader
// never sees half a file and a failed write leaves the old one in place.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write creates path (mode 0644) with what write writes, creating its
// directory when missing. An error from write or from closing the file is returned as
// "writing <path>: err", and the temporary file is removed.
func Write(path string, write func(w io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
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
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Leftovers returns the temporary files of path that a Write killed
// before its rename left behind (a write that fails removes its own).
func Leftovers(path string) ([]string, error) {
	return filepath.Glob(filepath.Join(filepath.Dir(path), "."+globEscape(filepath.Base(path))+".tmp*"))
}

// RemoveStale removes the leftovers of path last modified more than age
// ago: a younger one may belong to a write still under way in another
// process.
func RemoveStale(path string, age time.Duration) error {
	left, err := Leftovers(path)
	if err != nil {
		return err
	}
	for _, f := range left {
		if fi, err := os.Lstat(f); err == nil && time.Since(fi.ModTime()) > age {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// IsLeftover reports whether name is the name of a temporary file of
// Write.
func IsLeftover(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

// WriteFile writes b to path with Write.
func WriteFile(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}
