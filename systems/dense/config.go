package dense

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// indexVersion is part of every Config hash: bump it when the doc text or
// the way vectors are made changes, so golden files made by the old code are
// recognised as stale.
const indexVersion = "dense-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid dense config")

// Config is one dense retrieval configuration.
type Config struct {
	Name  string // short name used in test and file names; the model id for Configs
	Model string // manifest model id (embed/models)
	// BatchSize is the number of texts per model run; 0 lets package embed
	// choose (1 for dynamically quantized models, whose vectors otherwise
	// depend on their batch companions).
	BatchSize int
}

// Configs returns one configuration per manifest model, in manifest order,
// named after the model. It is empty only if the embedded manifest is broken
// (which the embed/models tests catch).
func Configs() []Config {
	ms, err := models.Manifest()
	if err != nil {
		return nil
	}
	cs := make([]Config, len(ms))
	for i, m := range ms {
		cs[i] = Config{Name: m.ID, Model: m.ID}
	}
	return cs
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	if _, err := models.Manifest(); err != nil {
		return Config{}, fmt.Errorf("dense: %w", err)
	}
	var names []string
	for _, c := range Configs() {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Config{}, fmt.Errorf("dense: unknown config %q (known: %s)", name, strings.Join(names, ", "))
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if c.Name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidConfig)
	}
	for _, r := range c.Name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%w: name %q: only a-z, 0-9, '-', '_' and '.' are allowed (it names subtests and files)", ErrInvalidConfig, c.Name)
		}
	}
	if _, err := models.Lookup(c.Model); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidConfig, c.Name, err)
	}
	if c.BatchSize < 0 {
		return fmt.Errorf("%w: %s: batch size %d", ErrInvalidConfig, c.Name, c.BatchSize)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of c, of the manifest entry of its model
// (files' SHA-256, dimension, pooling, max tokens, prefixes) and of the index
// version; it keys golden files. An unknown model hashes its id only.
func (c Config) Hash() string {
	h := sha256.New()
	fields := []string{indexVersion, c.Name, c.Model, strconv.Itoa(c.BatchSize)}
	if m, err := models.Lookup(c.Model); err == nil {
		fields = append(fields, strconv.Itoa(m.Dimension), m.Pooling, strconv.Itoa(m.MaxTokens), m.QueryPrefix, m.PassagePrefix)
		for _, f := range m.Files {
			fields = append(fields, f.Name, f.SHA256)
		}
	}
	for _, f := range fields {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}
