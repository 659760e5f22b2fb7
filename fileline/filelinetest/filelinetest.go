// Package filelinetest checks in tests that a reader's error is a
// *fileline.Error at the place its message names.
package filelinetest

import (
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// posRE finds the first "name:line:" of an expected message.
var posRE = regexp.MustCompile(`([^\s:"]+):(\d+):`)

// At fails t unless errors.As finds a *fileline.Error in err whose File
// ends in file (a base name or a path suffix) and whose Line is line.
func At(t testing.TB, err error, file string, line int) {
	t.Helper()
	var fe *fileline.Error
	if !errors.As(err, &fe) {
		t.Errorf("error %v is not a *fileline.Error (want one at %s:%d)", err, file, line)
		return
	}
	if fe.Line != line || (fe.File != file && !hasPathSuffix(fe.File, file)) {
		t.Errorf("errors.As finds a position %s:%d, want %s:%d (error %v)", fe.File, fe.Line, file, line, err)
	}
}

// Want checks err with At at the first "file:line:" of want, the text a test
// expects in err's message, and reports whether want named one.
func Want(t testing.TB, err error, want string) bool {
	t.Helper()
	m := posRE.FindStringSubmatch(want)
	if m == nil {
		return false
	}
	line, _ := strconv.Atoi(m[2])
	At(t, err, m[1], line)
	return true
}

func hasPathSuffix(p, suffix string) bool {
	p, suffix = filepath.ToSlash(p), filepath.ToSlash(suffix)
	return len(p) > len(suffix) && p[len(p)-len(suffix):] == suffix && (p[len(p)-len(suffix)-1] == '/' || suffix[0] == '/')
}
