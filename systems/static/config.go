package static

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems/internal/modelconfig"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// indexVersion is part of every Config hash: bump it when the doc text or
// the way vectors are made changes, so golden files made by the old code are
// recognised as stale.
const indexVersion = "static-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid static config")

// Config is one static-embedding retrieval configuration.
type Config struct {
	Name  string // short name used in test and file names; the model id for Configs
	Model string // manifest model id of kind static (embed/models)
	// MaxTokens caps the tokens averaged per text; 0 takes the manifest's.
	MaxTokens int
}

// Configs returns one configuration per static model of the manifest, in
// manifest order, named after the model.
func Configs() []Config {
	ms, err := models.Manifest()
	if err != nil {
		return nil
	}
	var cs []Config
	for _, m := range ms {
		if m.Kind == models.KindStatic {
			cs = append(cs, Config{Name: m.ID, Model: m.ID})
		}
	}
	return cs
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	if _, err := models.Manifest(); err != nil {
		return Config{}, fmt.Errorf("static: %w", err)
	}
	return sysconfig.ByName("static", Configs(), func(c Config) string { return c.Name }, name)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	return modelconfig.Check(ErrInvalidConfig, c.Name, c.model, func(m models.Model) string {
		if m.Kind != models.KindStatic {
			return fmt.Sprintf("model %s is not a static model (systems/dense runs ONNX models)", m.ID)
		}
		return ""
	}, "max tokens", c.MaxTokens)
}

// model is c's model, from the catalog.
func (c Config) model() (models.Model, error) { return models.Lookup(c.Model) }

// maxTokens is the token cap in effect for model m.
func (c Config) maxTokens(m models.Model) int {
	if c.MaxTokens > 0 {
		return c.MaxTokens
	}
	return m.MaxTokens
}

// Hash returns a stable hex SHA-256 of c, of the manifest entry of its model
// (files' SHA-256, dimension, pooling, max tokens, prefixes) and of the index
// version; it keys golden files. An unknown model hashes its id only.
func (c Config) Hash() string {
	fields := []string{indexVersion, c.Name, c.Model, strconv.Itoa(c.MaxTokens)}
	if m, err := models.Lookup(c.Model); err == nil {
		fields = append(fields, m.Kind)
		fields = append(fields, modelconfig.HashFields(m)...)
	}
	return sysconfig.Hash(fields...)
}
