package graph

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// SystemHybrid names a hybrid base (package hybrid); the other base systems
// are hybrid.SystemBM25 and hybrid.SystemDense.
const SystemHybrid = "hybrid"

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

// Base names the system whose ranking is expanded: "bm25", "dense" or
// "hybrid" and the name of one of its configs.
type Base struct {
	System string
	Config string
}

// Config is one expansion of a base system.
type Config struct {
	Name  string // short name used in test and file names
	Base  Base
	Seeds int     // top base hits whose neighbours are added
	Decay float64 // neighbour score = Decay × seed score; in (0, 1]
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
	oneHop := func(name, system, config string) Config {
		return Config{
			Name: name, Base: Base{System: system, Config: config},
			Seeds: DefaultSeeds, Decay: DefaultDecay, MaxCandidates: DefaultMaxCandidates,
		}
	}
	return []Config{
		oneHop("bm25code-1hop", hybrid.SystemBM25, "code-weighted"),
		oneHop("minilm-1hop", hybrid.SystemDense, "minilm-l6-q"),
		oneHop("bge-1hop", hybrid.SystemDense, "bge-small-q"),
		oneHop("rrf-bm25code-minilm-1hop", SystemHybrid, "rrf-bm25code-minilm"),
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
	if _, err := baseHash(c.Base); err != nil {
		return fmt.Errorf("%w: %s: base: %w", ErrInvalidConfig, c.Name, err)
	}
	return nil
}

// Hash returns a stable hex SHA-256 of every field of c, of the base
// config's hash and of the graph version; it keys golden files.
func (c Config) Hash() string {
	bh, _ := baseHash(c.Base)
	return sysconfig.Hash(
		graphVersion, c.Name, c.Base.System, c.Base.Config, bh,
		strconv.Itoa(c.Seeds),
		strconv.FormatFloat(c.Decay, 'g', -1, 64),
		strconv.Itoa(c.MaxNeighbors),
		strconv.Itoa(c.MaxCandidates),
	)
}

// Requires reports what the base of cfg needs under cacheDir and does not
// have (the ONNX Runtime library, a model); a BM25 base needs nothing.
func Requires(cfg Config, cacheDir string) (kind string, err error) {
	if cfg.Base.System == SystemHybrid {
		hc, err := hybrid.ConfigByName(cfg.Base.Config)
		if err != nil {
			return "", err
		}
		return hybrid.Requires(hc, cacheDir)
	}
	return hybrid.MemberRequires(cfg.Base.System, cfg.Base.Config, cacheDir)
}

func baseHash(b Base) (string, error) {
	if b.System == SystemHybrid {
		hc, err := hybrid.ConfigByName(b.Config)
		if err != nil {
			return "", err
		}
		return hc.Hash(), nil
	}
	return hybrid.MemberHash(b.System, b.Config)
}

func newBase(b Base, opt systems.Options) (systems.System, error) {
	if b.System == SystemHybrid {
		hc, err := hybrid.ConfigByName(b.Config)
		if err != nil {
			return nil, err
		}
		return hybrid.New(hc, opt)
	}
	return hybrid.NewMember(b.System, b.Config, opt)
}
