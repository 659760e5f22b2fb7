package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadDuplicateKey: a key given twice in one object is an error naming
// both lines, not "the last one wins" (issue 39 item 8).
func TestLoadDuplicateKey(t *testing.T) {
	text := strings.Replace(validConfig, `  "timeout": "30s"`, `  "timeout": "30s",
  "timeout": "5s"`, 1)
	_, err := Load(writeConfig(t, text))
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, "demo.json:13: timeout: duplicate key (first on line 12")
	// In a nested object too, with its path.
	text = strings.Replace(validConfig, `"timeout": "5m"}`, `"timeout": "5m", "timeout": "1m"}`, 1)
	_, err = Load(writeConfig(t, text))
	require.ErrorContains(t, err, "demo.json:8: index.timeout: duplicate key")
	// The same key in two objects is not a duplicate.
	_, err = Load(writeConfig(t, validConfig))
	require.NoError(t, err)
}

// TestLoadUnsetEnv: a ${VAR} with no default that is unset is a load error
// naming file:line and the field, unless a requires entry names the
// variable (then the system is missing, not broken) (issue 39 item 8).
func TestLoadUnsetEnv(t *testing.T) {
	t.Setenv("RB_TEST_UNSET_VAR", "")
	text := strings.Replace(validConfig, `["demo", "search", "{query}", "{k}"]`, `["demo", "search", "--key", "${RB_TEST_UNSET_VAR}", "{query}"]`, 1)
	_, err := Load(writeConfig(t, text))
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, "demo.json:10: command.search.3: environment variable RB_TEST_UNSET_VAR is not set")
	t.Setenv("RB_TEST_UNSET_VAR", "v")
	_, err = Load(writeConfig(t, text))
	require.NoError(t, err, "the variable is set")
	t.Setenv("RB_TEST_UNSET_VAR", "")
	required := strings.Replace(text, `"system": "demo",`, `"system": "demo",
  "requires": [{"env": "RB_TEST_UNSET_VAR", "hint": "the demo key"}],`, 1)
	c, err := Load(writeConfig(t, required))
	require.NoError(t, err, "a variable a requires entry names may be unset: the system is reported missing")
	require.Len(t, c.Unmet(), 1)
}

// TestLoadUnsetEnvRequiredPath: a variable a requires path reads (the
// example's {"path": "${MCPGREP}"}) may be unset too: Unmet names it.
func TestLoadUnsetEnvRequiredPath(t *testing.T) {
	t.Setenv("RB_TEST_TOOL", "")
	text := strings.Replace(validConfig, `["demo", "search", "{query}", "{k}"]`, `["${RB_TEST_TOOL}", "search", "{query}"]`, 1)
	_, err := Load(writeConfig(t, text))
	require.ErrorContains(t, err, "command.search.0: environment variable RB_TEST_TOOL is not set")
	text = strings.Replace(text, `"system": "demo",`, `"system": "demo",
  "requires": [{"path": "${RB_TEST_TOOL}", "hint": "build it"}],`, 1)
	c, err := Load(writeConfig(t, text))
	require.NoError(t, err)
	require.Len(t, c.Unmet(), 1)
}
