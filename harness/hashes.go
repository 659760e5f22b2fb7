package harness

import "fmt"

// hashPair shows two different hashes for a stale-baseline message: whole
// when short (a user's Spec.Hash is often a name with a version,
// "trigram-tfidf-v2"), else a prefix long enough to show where they differ,
// so that two different hashes never print the same.
func hashPair(a, b string) (string, string) {
	const keep = 12 // a content hash is recognisable by its first 12 hex digits
	n := keep
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			n = max(n, i+4)
			break
		}
		if i == len(a)-1 || i == len(b)-1 {
			n = max(n, i+2) // one is a prefix of the other
		}
	}
	return shorten(a, n), shorten(b, n)
}

func shorten(h string, n int) string {
	if len(h) <= n+4 { // "…" would save next to nothing
		return fmt.Sprintf("%q", h)
	}
	return fmt.Sprintf("%q…", h[:n])
}

// configHashHelp says what a config hash is, for the stale-baseline message.
const configHashHelp = "the system's config changed (Spec.Hash must change whenever a result can: " +
	"a version you bump, or a hash of every field that changes results; the golden file records it)"
