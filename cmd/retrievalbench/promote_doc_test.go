package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
)

// TestPromotionDocs checks docs/promotion.md and docs/cache.md against the
// commands: every flag their command lines use is one the subcommand lists,
// and every ledger line the worked example quotes is a line of the
// committed golden/LEDGER.jsonl, verbatim.
func TestPromotionDocs(t *testing.T) {
	flagRE := regexp.MustCompile(`(?:^|\s)(-[a-z][a-z0-9-]*)`)
	cmdRE := regexp.MustCompile(`(?m)retrievalbench (promote|cache info|cache evict)\b([^\n` + "`" + `]*)`)
	seen := 0
	for _, doc := range []string{"promotion.md", "cache.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
		require.NoError(t, err)
		for _, m := range cmdRE.FindAllStringSubmatch(string(b), -1) {
			var stdout, stderr bytes.Buffer
			_ = run(append(strings.Fields(m[1]), "-h"), &stdout, &stderr)
			usage := stderr.String()
			for _, f := range flagRE.FindAllStringSubmatch(m[2], -1) {
				seen++
				if !strings.Contains(usage, "  "+f[1]+" ") && !strings.Contains(usage, "  "+f[1]+"\n") {
					t.Errorf("docs/%s: %q uses %s, which %s -h does not list", doc, strings.TrimSpace(m[0]), f[1], m[1])
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("found only %d flags in the documented command lines", seen)
	}

	ledgerPath := filepath.Join("..", "..", "golden", "LEDGER.jsonl")
	ledger, err := os.ReadFile(ledgerPath)
	if os.IsNotExist(err) {
		t.Skip("no golden/LEDGER.jsonl yet")
	}
	require.NoError(t, err)
	_, err = ledgerfmt.Read(ledgerPath)
	require.NoError(t, err, "the committed ledger must parse")
	lines := map[string]bool{}
	for _, l := range strings.Split(string(ledger), "\n") {
		lines[l] = true
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "promotion.md"))
	require.NoError(t, err)
	quoted := 0
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, `{"time":`) {
			quoted++
			if !lines[l] {
				t.Errorf("docs/promotion.md quotes a ledger line that golden/LEDGER.jsonl does not have:\n%s", l)
			}
		}
	}
	if quoted == 0 {
		t.Error("docs/promotion.md quotes no ledger line")
	}
}
