package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCampaignDocFlags checks that every flag the command lines of
// docs/campaigns.md use is one the subcommand knows (its -h lists it).
func TestCampaignDocFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "campaigns.md"))
	require.NoError(t, err)
	// Join continued lines, then take every line that runs a subcommand.
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	cmdRE := regexp.MustCompile(`(?m)retrievalbench (campaign-gate|campaign|score|report)\b([^\n` + "`" + `]*)`)
	flagRE := regexp.MustCompile(`(?:^|[\s\[|(])(-[a-z][a-z0-9-]*)`)
	seen := 0
	for _, m := range cmdRE.FindAllStringSubmatch(text, -1) {
		var stdout, stderr bytes.Buffer
		_ = run([]string{m[1], "-h"}, &stdout, &stderr)
		usage := stderr.String()
		for _, f := range flagRE.FindAllStringSubmatch(m[2], -1) {
			seen++
			// The flag package prints "  -name type\n", "  -name\n", or, for a
			// one-letter boolean, "  -v\tusage" on one line.
			if !strings.Contains(usage, "  "+f[1]+" ") && !strings.Contains(usage, "  "+f[1]+"\n") && !strings.Contains(usage, "  "+f[1]+"\t") {
				t.Errorf("docs/campaigns.md: %q uses %s, which %s -h does not list", strings.TrimSpace(m[0]), f[1], m[1])
			}
		}
	}
	if seen < 10 {
		t.Errorf("found only %d flags in the documented command lines", seen)
	}
}
