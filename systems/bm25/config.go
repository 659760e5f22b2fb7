package bm25

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// Tokenizer names accepted in Config.Tokenizer.
const (
	TokUnicode61 = "unicode61"
	TokPorter    = "porter"
	TokCode      = "code"
)

// indexVersion is part of every Config hash: bump it when the index layout or
// the Go-side tokenization changes, so cached indexes and golden files made
// by the old code are recognised as stale.
const indexVersion = "bm25-index-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid bm25 config")

// Config is one BM25 variant. k1 and b are fixed by FTS5 (1.2 and 0.75).
type Config struct {
	Name      string // short name used in test and file names, e.g. "code-weighted"
	Tokenizer string // TokUnicode61, TokPorter or TokCode

	// Column weights passed to FTS5's bm25(): a match in a column counts
	// this many times. Zero ignores the column; at least one must be > 0.
	SymbolWeight, PathWeight, BodyWeight float64
}

// DefaultConfig is the code-aware configuration with column weights.
func DefaultConfig() Config {
	return Config{Name: "code-weighted", Tokenizer: TokCode, SymbolWeight: 4, PathWeight: 2, BodyWeight: 1}
}

// Configs returns the named configurations, in a fixed order from the plain
// baseline to the most code-aware, each adding one idea to the previous one.
func Configs() []Config {
	return []Config{
		{Name: "unicode61", Tokenizer: TokUnicode61, SymbolWeight: 1, PathWeight: 1, BodyWeight: 1},
		{Name: "porter", Tokenizer: TokPorter, SymbolWeight: 1, PathWeight: 1, BodyWeight: 1},
		{Name: "code", Tokenizer: TokCode, SymbolWeight: 1, PathWeight: 1, BodyWeight: 1},
		DefaultConfig(),
	}
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	return sysconfig.ByName("bm25", Configs(), func(c Config) string { return c.Name }, name)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if err := sysconfig.CheckName(ErrInvalidConfig, c.Name); err != nil {
		return err
	}
	switch c.Tokenizer {
	case TokUnicode61, TokPorter, TokCode:
	default:
		return fmt.Errorf("%w: %s: tokenizer %q: want %q, %q or %q", ErrInvalidConfig, c.Name, c.Tokenizer, TokUnicode61, TokPorter, TokCode)
	}
	positive := false
	for _, w := range []struct {
		name string
		v    float64
	}{{"symbol", c.SymbolWeight}, {"path", c.PathWeight}, {"body", c.BodyWeight}} {
		if math.IsNaN(w.v) || math.IsInf(w.v, 0) || w.v < 0 {
			return fmt.Errorf("%w: %s: %s weight %v: want a finite number >= 0", ErrInvalidConfig, c.Name, w.name, w.v)
		}
		positive = positive || w.v > 0
	}
	if !positive {
		return fmt.Errorf("%w: %s: all column weights are zero", ErrInvalidConfig, c.Name)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of every field of c and of the index
// format version; it keys on-disk indexes and golden files.
func (c Config) Hash() string {
	return sysconfig.Hash(
		indexVersion, c.Name, c.Tokenizer,
		strconv.FormatFloat(c.SymbolWeight, 'g', -1, 64),
		strconv.FormatFloat(c.PathWeight, 'g', -1, 64),
		strconv.FormatFloat(c.BodyWeight, 'g', -1, 64),
	)
}

// ftsTokenizer is the FTS5 tokenize= argument for c.
func (c Config) ftsTokenizer() string {
	switch c.Tokenizer {
	case TokPorter:
		return "porter unicode61 remove_diacritics 2"
	case TokCode:
		return "porter unicode61 remove_diacritics 2 tokenchars '_'"
	default:
		return "unicode61 remove_diacritics 2"
	}
}
