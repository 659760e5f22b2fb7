package campaign

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type fixedCounter struct{}

func (fixedCounter) Count(string) int { return 1 }
func (fixedCounter) ID() string       { return "fixed" }

// TestRunConfigTokens: a campaign's tokenizer reaches every cell it runs.
func TestRunConfigTokens(t *testing.T) {
	cfg := DefaultConfig()
	require.Nil(t, runConfig(cfg).Tokens, "no tokenizer: no token measures")
	cfg.Tokens = fixedCounter{}
	require.Equal(t, "fixed", runConfig(cfg).Tokens.ID())
}
