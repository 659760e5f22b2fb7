package hybrid

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// Fusion methods accepted in Config.Method.
const (
	MethodRRF      = "rrf"
	MethodWeighted = "weighted"
)

// Defaults.
const (
	DefaultK     = 60  // RRF constant of Cormack et al. (2009)
	DefaultDepth = 100 // hits asked of every member
)

// fusionVersion is part of every Config hash: bump it when the fusion
// arithmetic changes, so golden files made by the old code are stale.
const fusionVersion = "hybrid-v1"

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid hybrid config")

// Member is one fused system and its weight in the fusion. Any Spec can be
// a member: a built-in config, a user's system, an external one.
type Member struct {
	Spec   systems.Spec
	Weight float64 // multiplies the member's contribution; must be >= 0
}

// Config is one fusion of member systems.
type Config struct {
	Name    string // short name used in test and file names
	Method  string // MethodRRF or MethodWeighted
	K       int    // RRF constant; ignored by MethodWeighted
	Members []Member
	// Depth is the number of hits asked of every member (at least the k of
	// the Search call); a doc below it counts as missing from that list.
	Depth int
}

// Configs returns the named configurations: BM25 (code-aware, column
// weighted) fused with a small and a larger dense model, by RRF and by an
// even weighted sum. The weights are not tuned on any benchmark.
func Configs() []Config {
	pair := func(model string, w float64) []Member {
		return []Member{
			{Spec: bm25Spec("code-weighted"), Weight: w},
			{Spec: denseSpec(model), Weight: w},
		}
	}
	return []Config{
		{Name: "rrf-bm25code-minilm", Method: MethodRRF, K: DefaultK, Depth: DefaultDepth, Members: pair("minilm-l6-q", 1)},
		{Name: "rrf-bm25code-bge", Method: MethodRRF, K: DefaultK, Depth: DefaultDepth, Members: pair("bge-small-q", 1)},
		{Name: "weighted-bm25code-minilm", Method: MethodWeighted, Depth: DefaultDepth, Members: pair("minilm-l6-q", 0.5)},
		{Name: "weighted-bm25code-bge", Method: MethodWeighted, Depth: DefaultDepth, Members: pair("bge-small-q", 0.5)},
	}
}

// ConfigByName returns the named configuration from Configs.
func ConfigByName(name string) (Config, error) {
	return sysconfig.ByName("hybrid", Configs(), func(c Config) string { return c.Name }, name)
}

// bm25Spec and denseSpec name the members of Configs. A name that is not a
// config yields a Spec without a constructor, which Validate rejects.
func bm25Spec(name string) systems.Spec {
	c, err := bm25.ConfigByName(name)
	if err != nil {
		return systems.Spec{System: "bm25", Config: name}
	}
	return bm25.Spec(c)
}

func denseSpec(name string) systems.Spec {
	c, err := dense.ConfigByName(name)
	if err != nil {
		return systems.Spec{System: "dense", Config: name}
	}
	return dense.Spec(c)
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
// Every member must be a runnable Spec (systems.Spec.Validate).
func (c Config) Validate() error { return c.validate(true) }

// validate checks c; resolve also checks that every member is a runnable
// Spec (NewWithMembers fuses systems that have none).
func (c Config) validate(resolve bool) error {
	if err := sysconfig.CheckName(ErrInvalidConfig, c.Name); err != nil {
		return err
	}
	switch c.Method {
	case MethodRRF:
		if c.K < 1 {
			return fmt.Errorf("%w: %s: rrf k %d: want >= 1", ErrInvalidConfig, c.Name, c.K)
		}
	case MethodWeighted:
	default:
		return fmt.Errorf("%w: %s: method %q: want %q or %q", ErrInvalidConfig, c.Name, c.Method, MethodRRF, MethodWeighted)
	}
	if c.Depth < 1 {
		return fmt.Errorf("%w: %s: depth %d: want >= 1", ErrInvalidConfig, c.Name, c.Depth)
	}
	if len(c.Members) < 2 {
		return fmt.Errorf("%w: %s: %d members: want at least 2", ErrInvalidConfig, c.Name, len(c.Members))
	}
	positive := false
	seen := map[string]bool{}
	for i, m := range c.Members {
		if math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0) || m.Weight < 0 {
			return fmt.Errorf("%w: %s: member %d (%s): weight %v: want a finite number >= 0", ErrInvalidConfig, c.Name, i, m.Spec.Name(), m.Weight)
		}
		positive = positive || m.Weight > 0
		if seen[m.Spec.Name()] {
			return fmt.Errorf("%w: %s: member %s listed twice", ErrInvalidConfig, c.Name, m.Spec.Name())
		}
		seen[m.Spec.Name()] = true
		if !resolve {
			continue
		}
		if err := m.Spec.Validate(); err != nil {
			return fmt.Errorf("%w: %s: member %d: %w", ErrInvalidConfig, c.Name, i, err)
		}
	}
	if !positive {
		return fmt.Errorf("%w: %s: all member weights are zero", ErrInvalidConfig, c.Name)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of every field of c, of the config hash
// of every member and of the fusion version; it keys golden files.
func (c Config) Hash() string {
	fields := []string{fusionVersion, c.Name, c.Method, strconv.Itoa(c.K), strconv.Itoa(c.Depth)}
	for _, m := range c.Members {
		fields = append(fields, m.Spec.System, m.Spec.Config, strconv.FormatFloat(m.Weight, 'g', -1, 64), m.Spec.Hash)
	}
	return sysconfig.Hash(fields...)
}

// Requires reports the first thing a member of cfg needs under cacheDir and
// does not have (nil if nothing).
func Requires(cfg Config, cacheDir string) *systems.Requirement {
	for _, m := range cfg.Members {
		if r := m.Spec.Missing(cacheDir); r != nil {
			return &systems.Requirement{Kind: r.Kind, Reason: fmt.Sprintf("hybrid %s: member %s: %s", cfg.Name, m.Spec.Name(), r.Reason)}
		}
	}
	return nil
}

// Spec is the benchmark value of c: as tolerant as its most tolerant
// member, heavy if any member is, held to its smallest member's MaxDocs.
func Spec(c Config) systems.Spec {
	s := systems.Spec{
		System: "hybrid", Config: c.Name, Hash: c.Hash(),
		Requires: func(cache string) *systems.Requirement { return Requires(c, cache) },
		New:      func(opt systems.Options) (systems.System, error) { return New(c, opt) },
	}
	b := systems.Schedule{ToleranceReason: "deterministic: every member ranks identically on every run"}
	for _, m := range c.Members {
		mb := m.Spec.Bench
		b.Heavy = b.Heavy || mb.Heavy
		b.FixturesOnly = b.FixturesOnly || mb.FixturesOnly
		if n := mb.MaxDocs; n > 0 && (b.MaxDocs == 0 || n < b.MaxDocs) {
			b.MaxDocs, b.MaxDocsReason = n, "fuses "+m.Spec.Name()+": "+mb.MaxDocsReason
		}
		if mb.Tolerance > b.Tolerance {
			b.Tolerance = mb.Tolerance
			b.ToleranceReason = "fuses " + m.Spec.Name() + ": " + mb.ToleranceReason
		}
	}
	s.Bench = b
	return s
}

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
