package dense

import "github.com/retrievalbench/retrievalbench/systems"

// DefaultModel is the embedding model every dataset runs at every size: the
// fastest of the manifest (quantized all-MiniLM-L6-v2). Configs of other
// models are Heavy.
const DefaultModel = "minilm-l6-q"

// fixturesOnly are the models too slow for the CI size beyond the
// fixtures: mpnet-base-q (768-d, 12 layers) embeds about 3 code chunks a
// second on 2 cores, 10× the default's CPU per doc.
var fixturesOnly = map[string]bool{"mpnet-base-q": true}

// Tolerance allows one task in about thirty to flip: ONNX Runtime's kernels
// differ between CPUs (AVX2, AVX-512, VNNI) in float rounding, which can swap
// two near-tied docs; on one machine the runs are identical.
const Tolerance = 0.035

// ToleranceReason is the reason recorded with Tolerance.
const ToleranceReason = "model-based: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied docs"

// Spec is the benchmark value of c.
func Spec(c Config) systems.Spec {
	return systems.Spec{
		System: "dense", Config: c.Name, Hash: c.Hash(),
		Tolerance: Tolerance, ToleranceReason: ToleranceReason,
		Heavy:        c.Model != DefaultModel,
		FixturesOnly: fixturesOnly[c.Model],
		Requires:     func(cache string) *systems.Requirement { return Requires(c, cache) },
		New:          func(opt systems.Options) (systems.System, error) { return New(c, opt) },
	}
}

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
