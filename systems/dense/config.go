package dense

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
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

// Configs returns one configuration per ONNX model of the manifest, in
// manifest order, named after the model (static models are systems/static's).
// It is empty only if the embedded manifest is broken (which the embed/models
// tests catch).
func Configs() []Config {
	ms, err := models.Manifest()
	if err != nil {
		return nil
	}
	var cs []Config
	for _, m := range ms {
		if m.IsONNX() {
			cs = append(cs, Config{Name: m.ID, Model: m.ID})
		}
	}
	return cs
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	if _, err := models.Manifest(); err != nil {
		return Config{}, fmt.Errorf("dense: %w", err)
	}
	return sysconfig.ByName("dense", Configs(), func(c Config) string { return c.Name }, name)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if err := sysconfig.CheckName(ErrInvalidConfig, c.Name); err != nil {
		return err
	}
	m, err := models.Lookup(c.Model)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidConfig, c.Name, err)
	}
	if !m.IsONNX() {
		return fmt.Errorf("%w: %s: model %s is a %s model, not an ONNX one (systems/static runs it)", ErrInvalidConfig, c.Name, m.ID, m.Kind)
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
	fields := []string{indexVersion, c.Name, c.Model, strconv.Itoa(c.BatchSize)}
	if m, err := models.Lookup(c.Model); err == nil {
		fields = append(fields, strconv.Itoa(m.Dimension), m.Pooling, strconv.Itoa(m.MaxTokens), m.QueryPrefix, m.PassagePrefix)
		for _, f := range m.Files {
			fields = append(fields, f.Name, f.SHA256)
		}
	}
	return sysconfig.Hash(fields...)
}
