// Package sysconfig holds what the Config types of the retrieval systems
// (bm25, dense, hybrid, graph) share: the rule for config names, the field
// hash that keys indexes and golden files, and lookup by name.
package sysconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// CheckName reports an empty name or one with a character other than a-z,
// 0-9, '-', '_' and '.' (a name becomes part of subtest and file names),
// wrapping invalid, the system's ErrInvalidConfig.
func CheckName(invalid error, name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name", invalid)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%w: name %q: only a-z, 0-9, '-', '_' and '.' are allowed (it names subtests and files)", invalid, name)
		}
	}
	return nil
}

// Hash returns the hex SHA-256 of fields, each written as
// "<byte length>:<field>;" so that no two field lists hash alike. The
// encoding is part of every golden file's key: changing it makes every
// baseline stale.
func Hash(fields ...string) string {
	h := sha256.New()
	for _, f := range fields {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ByName returns the config of configs that nameOf calls name, or an error
// "<system>: unknown config ..." listing the known names in order.
func ByName[C any](system string, configs []C, nameOf func(C) string, name string) (C, error) {
	names := make([]string, 0, len(configs))
	for _, c := range configs {
		if nameOf(c) == name {
			return c, nil
		}
		names = append(names, nameOf(c))
	}
	var zero C
	return zero, fmt.Errorf("%s: unknown config %q (known: %s)", system, name, strings.Join(names, ", "))
}
