package harness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/systems"
)

func TestHashPair(t *testing.T) {
	hex := "0d716787c3a1f4b2e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6"
	flip := func(s string, i int) string { return s[:i] + "x" + s[i+1:] }
	tests := []struct {
		name, a, b   string
		wantA, wantB string
		reason       string
	}{
		{"user version names", "trigram-tfidf-v2", "trigram-tfidf-v1", `"trigram-tfidf-v2"`, `"trigram-tfidf-v1"`,
			"a short Hash is shown whole: cutting it at 12 printed the same text for both (issue 29)"},
		{"content hashes differing early", hex, flip(hex, 3), `"0d716787c3a1"…`, `"0d7x6787c3a1"…`,
			"a content hash is recognisable by its first 12 digits"},
		{"content hashes differing late", hex, flip(hex, 40), `"` + hex[:44] + `"…`, `"` + flip(hex, 40)[:44] + `"…`,
			"the prefix runs past the first difference"},
		{"one a prefix of the other", hex, hex + "00", `"` + hex + `"`, `"` + hex + `00"`,
			"the longer one must not print as the shorter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := hashPair(tc.a, tc.b)
			if diff := cmp.Diff([]string{tc.wantA, tc.wantB}, []string{a, b}); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
			if a == b {
				t.Errorf("different hashes printed the same: %s", a)
			}
		})
	}
}

func TestStaleConfigHashMessage(t *testing.T) {
	answers := map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")}
	res, g := runFixed(t, answers)
	g.ConfigHash = "trigram-tfidf-v1"
	res.ConfigHash = "trigram-tfidf-v2"
	v := CheckGolden(g, res, 0)
	joined := strings.Join(v.Failures, "\n")
	for _, want := range []string{`config hash "trigram-tfidf-v2" ≠ golden "trigram-tfidf-v1"`, "Spec.Hash must change whenever a result can"} {
		if !strings.Contains(joined, want) {
			t.Errorf("failures %q lack %q", v.Failures, want)
		}
	}
}
