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

// TestMainJobDoc checks the README's "The main job" section: every make
// target it names is in the Makefile, every leaderboard flag it uses is one
// the command knows.
func TestMainJobDoc(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(readme), "\n## The main job\n")
	require.True(t, ok, "README.md has no \"## The main job\" section")
	sec, _, _ = strings.Cut(sec, "\n## ")

	targets := 0
	for _, m := range regexp.MustCompile(`(?m)(?:^|&& |`+"`"+`)make ([a-z][a-z-]*)`).FindAllStringSubmatch(sec, -1) {
		targets++
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).Match(mk) {
			t.Errorf("README's main job names make %s; the Makefile has no such target", m[1])
		}
	}
	var stdout, stderr bytes.Buffer
	_ = run([]string{"leaderboard", "-h"}, &stdout, &stderr)
	usage := stderr.String()
	flags := 0
	for _, m := range regexp.MustCompile(`retrievalbench leaderboard([^\n`+"`"+`]*)|`+"`"+`leaderboard (-[a-z]+)`).FindAllStringSubmatch(sec, -1) {
		for _, f := range regexp.MustCompile(`(?:^|\s)(-[a-z][a-z-]*)`).FindAllStringSubmatch(m[1]+" "+m[2], -1) {
			flags++
			if !strings.Contains(usage, "  "+f[1]+" ") {
				t.Errorf("README's main job uses leaderboard %s, which leaderboard -h does not list", f[1])
			}
		}
	}
	if targets < 4 || flags < 3 {
		t.Errorf("found %d make targets and %d leaderboard flags in the section; want at least 4 and 3", targets, flags)
	}
}
