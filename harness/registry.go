package harness

import (
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/graph"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
)

// denseTolerance allows one task in about thirty to flip: ONNX Runtime's
// kernels differ between CPUs (AVX2, AVX-512, VNNI) in float rounding, which
// can swap two near-tied docs; on one machine the runs are identical.
const denseTolerance = 0.035

// Spec names one system configuration and knows how to build it.
type Spec struct {
	System string // "bm25", "dense", …
	Config string // config name within the system
	Hash   string // hash of every config field, recorded in golden files
	// Tolerance is how far below golden a measure may fall before the gate
	// fails; 0 for deterministic systems. ToleranceReason says why.
	Tolerance       float64
	ToleranceReason string
	// Requires reports what this config needs and does not have (the ONNX
	// Runtime library, model files): kind is a testenv requirement kind
	// ("onnx", "models"). Nil means it needs nothing beyond the build.
	Requires func(cacheDir string) (kind string, err error)
	New      func(opt systems.Options) (systems.System, error)
	// Heavy marks configs that embed with a model several times slower than
	// the default one (DefaultDenseModel). The bench runs them on every
	// dataset at full size, and at the CI size on RepoQA only, so that CI
	// stays within its time budget while every model is still gated.
	Heavy bool
}

// DefaultDenseModel is the embedding model every dataset runs at every
// size: the fastest of the manifest (quantized all-MiniLM-L6-v2).
const DefaultDenseModel = "minilm-l6-q"

// Name is "system/config".
func (s Spec) Name() string { return s.System + "/" + s.Config }

// Registry returns every system configuration the benchmark knows, in a
// fixed order. It is built here, explicitly, rather than by init-time
// registration.
func Registry() []Spec {
	var specs []Spec
	for _, c := range bm25.Configs() {
		specs = append(specs, Spec{
			System: "bm25", Config: c.Name, Hash: c.Hash(),
			ToleranceReason: "deterministic: SQLite FTS5 ranks identically on every run",
			New:             func(opt systems.Options) (systems.System, error) { return bm25.New(c, opt) },
		})
	}
	for _, c := range dense.Configs() {
		specs = append(specs, Spec{
			System: "dense", Config: c.Name, Hash: c.Hash(),
			Tolerance:       denseTolerance,
			ToleranceReason: "model-based: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied docs",
			Requires:        func(cache string) (string, error) { return dense.Requires(c, cache) },
			New:             func(opt systems.Options) (systems.System, error) { return dense.New(c, opt) },
			Heavy:           c.Model != DefaultDenseModel,
		})
	}
	for _, c := range hybrid.Configs() {
		specs = append(specs, Spec{
			System: "hybrid", Config: c.Name, Hash: c.Hash(),
			Tolerance:       denseTolerance,
			ToleranceReason: "fuses a model-based member: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied docs",
			Requires:        func(cache string) (string, error) { return hybrid.Requires(c, cache) },
			New:             func(opt systems.Options) (systems.System, error) { return hybrid.New(c, opt) },
			Heavy:           usesHeavyModel(c.Members...),
		})
	}
	for _, c := range graph.Configs() {
		s := Spec{
			System: "graph", Config: c.Name, Hash: c.Hash(),
			ToleranceReason: "deterministic: a BM25 base (SQLite FTS5) and a lexical reference graph rank identically on every run",
			Requires:        func(cache string) (string, error) { return graph.Requires(c, cache) },
			New:             func(opt systems.Options) (systems.System, error) { return graph.New(c, opt) },
		}
		switch c.Base.System {
		case hybrid.SystemBM25:
		case "hybrid":
			hc, err := hybrid.ConfigByName(c.Base.Config)
			s.Heavy = err != nil || usesHeavyModel(hc.Members...)
			s.Tolerance, s.ToleranceReason = denseTolerance, "model-based base: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied seeds"
		default:
			s.Heavy = usesHeavyModel(hybrid.Member{System: c.Base.System, Config: c.Base.Config})
			s.Tolerance, s.ToleranceReason = denseTolerance, "model-based base: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied seeds"
		}
		specs = append(specs, s)
	}
	return specs
}

// usesHeavyModel reports whether any member is a dense config embedding
// with a model other than DefaultDenseModel (or one it cannot resolve).
func usesHeavyModel(members ...hybrid.Member) bool {
	for _, m := range members {
		if m.System != hybrid.SystemDense {
			continue
		}
		dc, err := dense.ConfigByName(m.Config)
		if err != nil || dc.Model != DefaultDenseModel {
			return true
		}
	}
	return false
}
