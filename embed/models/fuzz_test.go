package models

import (
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the embedded
// manifest.json among them).

// FuzzParse checks that no manifest makes Parse panic, that every error
// names the file, and that an accepted manifest has unique model ids and
// puts every file it would fetch inside the cache directory.
func FuzzParse(f *testing.F) {
	f.Add(manifestJSON)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := parse("fuzz.json", in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		cache := "/cache"
		inside := func(what, p string) {
			if rel, err := filepath.Rel(cache, p); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: %q is outside the cache %s", what, p, cache)
			}
		}
		inside("onnxruntime", m.ONNXRuntime.path(cache))
		seen := map[string]bool{}
		for _, md := range m.Models {
			if seen[md.ID] {
				t.Errorf("duplicate model id %q accepted", md.ID)
			}
			seen[md.ID] = true
			for _, file := range md.Files {
				inside(md.ID, md.Path(cache, file.Name))
			}
			md.Fingerprint() // must not panic
		}
	})
}
