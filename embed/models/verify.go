package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/download"
)

// Errors Verify and VerifyORT wrap, so callers can tell "not fetched yet"
// (skip, or fetch) from "present but wrong" (fail).
var (
	ErrMissing = errors.New("missing")
	ErrCorrupt = download.ErrCorrupt
)

// Verify checks that every file of m is present under cacheDir with the
// manifest's size and SHA-256. The error names the file and what is wrong,
// and wraps ErrMissing or ErrCorrupt.
func Verify(cacheDir string, m Model) error {
	var errs []error
	for _, f := range m.Files {
		if err := verifyFile(m.Path(cacheDir, f.Name), f.SHA256, f.Size); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 && m.InPlace() {
		return fmt.Errorf("model %s (read in place from %s): %w (the folder changed since its files were pinned: check it, then pin it again with `%s`)",
			m.ID, m.Dir, errors.Join(errs...), RepinCommand(m))
	}
	if len(errs) > 0 {
		return fmt.Errorf("model %s: %w (run `make setup` or `retrievalbench models fetch %s`)", m.ID, errors.Join(errs...), m.ID)
	}
	return nil
}

// VerifyORT checks the ONNX Runtime library under cacheDir like Verify.
func VerifyORT(cacheDir string) error {
	rt, err := ORT()
	if err != nil {
		return err
	}
	if err := verifyFile(rt.path(cacheDir), rt.SHA256, rt.Size); err != nil {
		return fmt.Errorf("onnxruntime %s: %w (run `make setup` or `retrievalbench models fetch`)", rt.Version, err)
	}
	return nil
}

// VerifyFile checks that path has the given size and SHA-256 (lowercase
// hex); the error names the file and wraps ErrMissing or ErrCorrupt.
func VerifyFile(path, sha string, size int64) error {
	return verifyFile(path, sha, size)
}

func verifyFile(path, sha string, size int64) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, ErrMissing)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: not a regular file", path, ErrCorrupt)
	}
	pin := download.Pin{SHA256: sha, Size: size}
	if st.Size() != size { // cheap: no need to hash
		if err := download.Check(st.Size(), sha, pin); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	sum, n, err := download.FileSum(path)
	if err != nil {
		return fmt.Errorf("%s: reading: %w", path, err)
	}
	if err := download.Check(n, sum, pin); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// RepinCommand is the command that pins the files of the in-place model m
// again: for a model of a user manifest, `models add -model-manifest FILE
// -repin -id ID DIR`, which rewrites that entry's pins and keeps its other
// fields; for a folder read directly (FromDir), `models add DIR`.
func RepinCommand(m Model) string {
	if m.Origin == "" || m.Origin == OriginBuiltin || m.Origin == m.Dir {
		return "retrievalbench models add " + shellQuote(m.Dir)
	}
	return fmt.Sprintf("retrievalbench models add -model-manifest %s -repin -id %s %s", shellQuote(m.Origin), shellQuote(m.ID), shellQuote(m.Dir))
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:@+=,.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
