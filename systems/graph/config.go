package graph

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// Defaults of the expansion.
const (
	DefaultSeeds         = 10
	DefaultDecay         = 0.9 // the seed harness's decay
	DefaultMaxCandidates = 1   // rule 5: names defined once in the corpus
)

// graphVersion is part of every Config hash: bump it when the graph or the
// expansion changes, so golden files made by the old code are stale.
const graphVersion = "graph-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid graph config")

// Config is one expansion of a base system.
type Config struct {
	Name  string       // short name used in test and file names
	Base  systems.Spec // the system whose ranking is expanded: any Spec
	Seeds int          // top base hits whose neighbours are added
	Decay float64      // neighbour score = Decay × seed score; in (0, 1]
	// MaxNeighbors caps the neighbours a seed brings in (callees first);
	// 0 means all.
	MaxNeighbors int
	// MaxCandidates is how many definitions a name may have in the whole
	// corpus for an otherwise unresolved use to link to all of them (rule 5
	// of the package doc); 0 disables that rule.
	MaxCandidates int
}

// Configs returns the named configurations: 1-hop expansion of BM25
// (code-aware, column weighted), of two dense models and of their RRF
// fusion, each with the defaults.
func Configs() []Config {
	oneHop := func(name string, base systems.Spec) Config {
		return Config{
			Name: name, Base: base,
			Seeds: DefaultSeeds, Decay: DefaultDecay, MaxCandidates: DefaultMaxCandidates,
		}
	}
	return []Config{
		oneHop("bm25code-1hop", named(bm25.Specs(), "code-weighted")),
		oneHop("minilm-1hop", named(dense.Specs(), "minilm-l6-q")),
		oneHop("bge-1hop", named(dense.Specs(), "bge-small-q")),
		oneHop("rrf-bm25code-minilm-1hop", named(hybrid.Specs(), "rrf-bm25code-minilm")),
	}
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	return sysconfig.ByName("graph", Configs(), func(c Config) string { return c.Name }, name)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if err := sysconfig.CheckName(ErrInvalidConfig, c.Name); err != nil {
		return err
	}
	if c.Seeds < 1 {
		return fmt.Errorf("%w: %s: seeds %d: want >= 1", ErrInvalidConfig, c.Name, c.Seeds)
	}
	if math.IsNaN(c.Decay) || c.Decay <= 0 || c.Decay > 1 {
		return fmt.Errorf("%w: %s: decay %v: want 0 < decay <= 1", ErrInvalidConfig, c.Name, c.Decay)
	}
	if c.MaxNeighbors < 0 {
		return fmt.Errorf("%w: %s: max neighbors %d: want >= 0", ErrInvalidConfig, c.Name, c.MaxNeighbors)
	}
	if c.MaxCandidates < 0 {
		return fmt.Errorf("%w: %s: max candidates %d: want >= 0", ErrInvalidConfig, c.Name, c.MaxCandidates)
	}
	if err := c.Base.Validate(); err != nil {
		return fmt.Errorf("%w: %s: base: %w", ErrInvalidConfig, c.Name, err)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of every field of c, of the base
// config's hash and of the graph version; it keys golden files.
func (c Config) Hash() string {
	return sysconfig.Hash(
		graphVersion, c.Name, c.Base.System, c.Base.Config, c.Base.Hash,
		strconv.Itoa(c.Seeds),
		strconv.FormatFloat(c.Decay, 'g', -1, 64),
		strconv.Itoa(c.MaxNeighbors),
		strconv.Itoa(c.MaxCandidates),
	)
}

// named returns the Spec of specs called config; a missing one yields a
// Spec without a constructor, which Validate rejects.
func named(specs []systems.Spec, config string) systems.Spec {
	for _, s := range specs {
		if s.Config == config {
			return s
		}
	}
	return systems.Spec{Config: config}
}

// Spec is the benchmark value of c: as tolerant and as heavy as its base,
// and held to its base's MaxDocs.
func Spec(c Config) systems.Spec {
	reason := "deterministic: a deterministic base and a lexical reference graph rank identically on every run"
	base := c.Base.Bench
	if base.Tolerance > 0 {
		reason = "expands " + c.Base.Name() + ": " + base.ToleranceReason
	}
	return systems.Spec{
		System: "graph", Config: c.Name, Hash: c.Hash(),
		Requires: c.Base.Requires,
		New:      func(opt systems.Options) (systems.System, error) { return New(c, opt) },
		Bench: systems.Schedule{
			Tolerance: base.Tolerance, ToleranceReason: reason, Heavy: base.Heavy, FixturesOnly: base.FixturesOnly,
			MaxDocs: base.MaxDocs, MaxDocsReason: base.MaxDocsReason,
		},
	}
}

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
