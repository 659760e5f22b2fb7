// Package builtin lists the systems retrievalbench ships: every named config
// of bm25, dense, static, hybrid and graph, as values. It is a function returning a
// slice, not a registry: a caller appends its own Specs (a Go system, an
// external one from systems/external) or passes a subset.
package builtin

import (
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/graph"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
	"github.com/retrievalbench/retrievalbench/systems/static"
)

// Specs returns every built-in system config in a fixed order: bm25, dense,
// static, hybrid, graph, each in its package's Configs order. Each call returns a
// new slice.
func Specs() []systems.Spec {
	var out []systems.Spec
	out = append(out, bm25.Specs()...)
	out = append(out, dense.Specs()...)
	out = append(out, static.Specs()...)
	out = append(out, hybrid.Specs()...)
	out = append(out, graph.Specs()...)
	return out
}

// Find returns the Spec named "system/config" among specs.
func Find(specs []systems.Spec, name string) (systems.Spec, bool) {
	for _, s := range specs {
		if s.Name() == name {
			return s, true
		}
	}
	return systems.Spec{}, false
}
