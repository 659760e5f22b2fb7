package static

import (
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/modelconfig"
)

// Spec is the benchmark value of c: deterministic (table lookups and float64
// sums in a fixed order) and light.
func Spec(c Config) systems.Spec {
	return systems.Spec{
		System: "static", Config: c.Name, Hash: c.Hash(), Dimension: modelconfig.Dimension(c.model),
		Requires: func(cache string) *systems.Requirement { return Requires(c, cache) },
		New:      func(opt systems.Options) (systems.System, error) { return New(c, opt) },
		Bench:    systems.Schedule{ToleranceReason: "deterministic: table lookups and float64 sums in a fixed order"},
	}
}

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
