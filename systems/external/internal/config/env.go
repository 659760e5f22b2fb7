package config

import (
	"os"
	"slices"
	"strings"
)

// DefaultEnvPass is what a child process inherits of the benchmark's
// environment when the config names nothing more (env_pass): enough to find
// programs, a home, a locale, a time zone and a temporary directory, and
// nothing else — not the user's other keys and tokens. The config's env
// adds to it (a secret reaches a child only when env names it).
var DefaultEnvPass = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TERM"}

// childEnv returns the entries of environ (os.Environ's form) a child may
// inherit: DefaultEnvPass and pass (a name, or "*" for everything).
func childEnv(environ, pass []string) []string {
	if slices.Contains(pass, "*") {
		return slices.Clone(environ)
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(DefaultEnvPass, name) || slices.Contains(pass, name) {
			out = append(out, kv)
		}
	}
	return out
}

// BaseEnv is childEnv of this process's environment for c.
func (c *Config) BaseEnv() []string { return childEnv(os.Environ(), c.EnvPass) }
