// Package modelconfig holds what the configs of the two embedding systems
// share — dense (ONNX models and endpoints) and static (static embedding
// tables), each a Config naming a model of the catalog (embed/models): the
// check of a config against its model, the model's part of the config hash,
// its vector dimension and what a model needs in the cache (Missing,
// CheckCache).
package modelconfig

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// Check reports the first problem of a config named name, wrapping invalid
// (the system's ErrInvalidConfig): a bad name, its model not found (model
// returns it, or why not), a model of a kind the system does not run
// (wrongKind returns why, "" when it runs it), or a negative knob (what
// names it in the message: "batch size", "max tokens").
func Check(invalid error, name string, model func() (models.Model, error), wrongKind func(models.Model) string, what string, knob int) error {
	if err := sysconfig.CheckName(invalid, name); err != nil {
		return err
	}
	m, err := model()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", invalid, name, err)
	}
	if why := wrongKind(m); why != "" {
		return fmt.Errorf("%w: %s: %s", invalid, name, why)
	}
	if knob < 0 {
		return fmt.Errorf("%w: %s: %s %d", invalid, name, what, knob)
	}
	return nil
}

// Dimension is the vector dimension of the model model returns (a config's
// Spec.Dimension), 0 when it has none or cannot be found.
func Dimension(model func() (models.Model, error)) int {
	m, err := model()
	if err != nil {
		return 0
	}
	return m.Dimension
}

// HashFields is a model's part of a config hash: its dimension, pooling,
// max tokens, prefixes and every file's name and SHA-256, in that order.
// Where the files live is not part of it: the same bytes under the same id
// share golden files.
func HashFields(m models.Model) []string {
	fields := []string{strconv.Itoa(m.Dimension), m.Pooling, strconv.Itoa(m.MaxTokens), m.QueryPrefix, m.PassagePrefix}
	for _, f := range m.Files {
		fields = append(fields, f.Name, f.SHA256)
	}
	return fields
}

// Missing is the requirement of a model whose files are not under cacheDir
// (systems.NeedsModels); nil when they are there. Files present but corrupt
// are not reported: New fails on them, so a broken cache is an error, not a
// skip.
func Missing(cacheDir string, m models.Model) *systems.Requirement {
	if err := models.Verify(cacheDir, m); errors.Is(err, models.ErrMissing) {
		return &systems.Requirement{Kind: systems.NeedsModels, Reason: err.Error()}
	}
	return nil
}

// CheckCache reports an empty cache dir, where the system (dense, static)
// config name would read its model files from.
func CheckCache(system, name, cacheDir string) error {
	if cacheDir == "" {
		return fmt.Errorf("%s[%s]: Options.CacheDir is empty; it must be the cache root that holds the models (`make setup`)", system, name)
	}
	return nil
}
