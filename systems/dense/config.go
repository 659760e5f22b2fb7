package dense

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
const indexVersion = "dense-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid dense config")

// Config is one dense retrieval configuration.
type Config struct {
	Name  string // short name used in test and file names; the model id for Configs
	Model string // model id: of the catalog (embed/models.Lookup), or of Definition
	// Definition, when set, is the model itself — read from a folder
	// (models.FromDir) or built in Go — and Model must be its id; nothing is
	// looked up. ForModel makes such a Config.
	Definition *models.Model
	// BatchSize is the number of texts per model run; 0 lets package embed
	// choose (1 for dynamically quantized models, whose vectors otherwise
	// depend on their batch companions).
	BatchSize int
}

// ForModel returns the configuration that runs m as it is, named after its
// id: the way to benchmark a model that no manifest lists.
//
//	m, _, _, err := models.FromDir("exports/my-model")
//	spec := dense.Spec(dense.ForModel(m))
func ForModel(m models.Model) Config {
	return Config{Name: m.ID, Model: m.ID, Definition: &m}
}

// model returns the model c runs.
func (c Config) model() (models.Model, error) {
	if d := c.Definition; d != nil {
		if d.ID != c.Model {
			return models.Model{}, fmt.Errorf("model %q, but its Definition is %q", c.Model, d.ID)
		}
		return *d, nil
	}
	return models.Lookup(c.Model)
}

// Configs returns one configuration per ONNX model of the catalog
// (models.Default: the embedded manifest, then the user manifests of
// $RETRIEVALBENCH_MODEL_MANIFEST), in catalog order, named after the model
// (static models are systems/static's). When a user manifest is broken it
// lists the embedded models, whose Validate then reports the error.
func Configs() []Config {
	c, err := models.Default()
	if err != nil {
		if c, err = models.Builtin(); err != nil {
			return nil
		}
	}
	ms := c.Models()
	var cs []Config
	for _, m := range ms {
		if m.IsONNX() || m.IsEndpoint() {
			cs = append(cs, Config{Name: m.ID, Model: m.ID})
		}
	}
	return cs
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	if _, err := models.Default(); err != nil {
		return Config{}, fmt.Errorf("dense: %w", err)
	}
	return sysconfig.ByName("dense", Configs(), func(c Config) string { return c.Name }, name)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	return modelconfig.Check(ErrInvalidConfig, c.Name, c.model, func(m models.Model) string {
		if !m.IsONNX() && !m.IsEndpoint() {
			return fmt.Sprintf("model %s is a %s model, not an ONNX one (systems/static runs it)", m.ID, m.Kind)
		}
		return ""
	}, "batch size", c.BatchSize)
}

// Hash returns a stable hex SHA-256 of c, of its model's description
// (files' SHA-256, dimension, pooling, max tokens, prefixes) and of the index
// version; it keys golden files. Where the files live (the cache, a
// folder) is not hashed: the same bytes under the same id share golden
// files. An unknown model hashes its id only.
func (c Config) Hash() string {
	fields := []string{indexVersion, c.Name, c.Model, strconv.Itoa(c.BatchSize)}
	if m, err := c.model(); err == nil {
		fields = append(fields, modelconfig.HashFields(m)...)
		fields = append(fields, m.Settings()...) // none for the built-in models
		if ep := m.Endpoint; ep != nil {         // the served model, not where it is served
			fields = append(fields, "endpoint", ep.Model, ep.Revision, strconv.Itoa(ep.RequestDimensions))
		}
	}
	return sysconfig.Hash(fields...)
}
