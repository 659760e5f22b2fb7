package bm25

import "github.com/retrievalbench/retrievalbench/systems"

// Spec is the benchmark value of c: deterministic, so tolerance 0.
func Spec(c Config) systems.Spec {
	return systems.Spec{
		System: "bm25", Config: c.Name, Hash: c.Hash(),
		New:   func(opt systems.Options) (systems.System, error) { return New(c, opt) },
		Bench: systems.Schedule{ToleranceReason: "deterministic: SQLite FTS5 ranks identically on every run"},
	}
}

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
