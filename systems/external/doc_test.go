package external

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocExamples parses every JSON block of docs/external-systems.md, so
// the documented examples stay valid configs.
func TestDocExamples(t *testing.T) {
	const doc = "../../docs/external-systems.md"
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	blocks := strings.Split(string(b), "```json\n")[1:]
	if len(blocks) < 4 {
		t.Fatalf("%s has %d JSON examples, want one per transport at least", doc, len(blocks))
	}
	transports := map[string]bool{}
	for i, blk := range blocks {
		text, _, ok := strings.Cut(blk, "```")
		require.True(t, ok, "example %d is not closed", i)
		c, err := Parse(doc+" example "+strconv.Itoa(i+1), []byte(text))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		transports[c.Transport] = true
	}
	for _, tr := range []string{TransportMCP, TransportCommand, TransportHTTP} {
		if !transports[tr] {
			t.Errorf("%s has no valid example of transport %q", doc, tr)
		}
	}
}
