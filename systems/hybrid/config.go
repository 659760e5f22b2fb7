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

// Member system names.
const (
	SystemBM25  = "bm25"
	SystemDense = "dense"
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

// Member is one fused system: a system name (SystemBM25, SystemDense), the
// name of one of its configs, and its weight in the fusion.
type Member struct {
	System string
	Config string
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
			{System: SystemBM25, Config: "code-weighted", Weight: w},
			{System: SystemDense, Config: model, Weight: w},
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

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
// Member configs must exist in their system's Configs.
func (c Config) Validate() error { return c.validate(true) }

// validate checks c; resolve also checks that every member names a known
// system config (NewWithMembers fuses systems that have no name).
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
	seen := map[Member]bool{}
	for i, m := range c.Members {
		if math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0) || m.Weight < 0 {
			return fmt.Errorf("%w: %s: member %d (%s/%s): weight %v: want a finite number >= 0", ErrInvalidConfig, c.Name, i, m.System, m.Config, m.Weight)
		}
		positive = positive || m.Weight > 0
		key := Member{System: m.System, Config: m.Config}
		if seen[key] {
			return fmt.Errorf("%w: %s: member %s/%s listed twice", ErrInvalidConfig, c.Name, m.System, m.Config)
		}
		seen[key] = true
		if !resolve {
			continue
		}
		if _, err := MemberHash(m.System, m.Config); err != nil {
			return fmt.Errorf("%w: %s: member %d: %w", ErrInvalidConfig, c.Name, i, err)
		}
	}
	if !positive {
		return fmt.Errorf("%w: %s: all member weights are zero", ErrInvalidConfig, c.Name)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of every field of c, of the config hash
// of every member and of the fusion version; it keys golden files. A member
// that does not resolve hashes its names only (Validate rejects it).
func (c Config) Hash() string {
	fields := []string{fusionVersion, c.Name, c.Method, strconv.Itoa(c.K), strconv.Itoa(c.Depth)}
	for _, m := range c.Members {
		mh, _ := MemberHash(m.System, m.Config)
		fields = append(fields, m.System, m.Config, strconv.FormatFloat(m.Weight, 'g', -1, 64), mh)
	}
	return sysconfig.Hash(fields...)
}

// MemberHash returns the config hash of the named config of system.
func MemberHash(system, config string) (string, error) {
	switch system {
	case SystemBM25:
		c, err := bm25.ConfigByName(config)
		if err != nil {
			return "", err
		}
		return c.Hash(), nil
	case SystemDense:
		c, err := dense.ConfigByName(config)
		if err != nil {
			return "", err
		}
		return c.Hash(), nil
	}
	return "", fmt.Errorf("unknown member system %q: want %q or %q", system, SystemBM25, SystemDense)
}

// NewMember builds the named config of system with opt.
func NewMember(system, config string, opt systems.Options) (systems.System, error) {
	switch system {
	case SystemBM25:
		c, err := bm25.ConfigByName(config)
		if err != nil {
			return nil, err
		}
		return bm25.New(c, opt)
	case SystemDense:
		c, err := dense.ConfigByName(config)
		if err != nil {
			return nil, err
		}
		return dense.New(c, opt)
	}
	return nil, fmt.Errorf("unknown member system %q: want %q or %q", system, SystemBM25, SystemDense)
}

// MemberRequires reports what the named config of system needs under
// cacheDir and does not have (see dense.Requires); BM25 needs nothing.
func MemberRequires(system, config, cacheDir string) (kind string, err error) {
	if system != SystemDense {
		return "", nil
	}
	c, err := dense.ConfigByName(config)
	if err != nil {
		return "", err
	}
	return dense.Requires(c, cacheDir)
}

// Requires reports the first thing a member of cfg needs under cacheDir and
// does not have: the ONNX Runtime library or a model (dense.Requires).
func Requires(cfg Config, cacheDir string) (kind string, err error) {
	for _, m := range cfg.Members {
		if kind, err := MemberRequires(m.System, m.Config, cacheDir); err != nil {
			return kind, fmt.Errorf("hybrid %s: member %s/%s: %w", cfg.Name, m.System, m.Config, err)
		}
	}
	return "", nil
}
