package dense

import (
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/modelconfig"
)

// DefaultModel is the embedding model every dataset runs at every size: the
// fastest of the manifest (quantized all-MiniLM-L6-v2). Configs of other
// models are Heavy.
const DefaultModel = "minilm-l6-q"

// fixturesOnly are the models too slow for the CI size beyond the
// fixtures: mpnet-base-q (768-d, 12 layers) embeds about 3 code chunks a
// second on 2 cores, 10× the default's CPU per doc.
var fixturesOnly = map[string]bool{"mpnet-base-q": true}

// maxDocs holds the slowest models to corpora they embed in minutes: at
// -size=full mpnet-base-q runs on the fixtures, CodeRAG, the seed sets and
// the campaign case file (≤ 3,000 chunks, under 20 minutes cold), and
// skips CoSQA (6,267 docs), Vaswani (11,429), RepoQA (13,726 chunks) and
// SWE-QA (122,000) unless asked with -heavy: 35 minutes to 11 hours each
// at ≈ 3 docs/s on 2 cores.
var maxDocs = map[string]int{"mpnet-base-q": 3000}

// maxDocsReason is the reason recorded with maxDocs.
const maxDocsReason = "a 768-d, 12-layer model embeds about 3 code chunks a second on 2 cores"

// Tolerance allows one task in about thirty to flip: ONNX Runtime's kernels
// differ between CPUs (AVX2, AVX-512, VNNI) in float rounding, which can swap
// two near-tied docs; on one machine the runs are identical.
const Tolerance = 0.035

// ToleranceReason is the reason recorded with Tolerance.
const ToleranceReason = "model-based: float rounding of ONNX Runtime kernels differs across CPUs and can swap near-tied docs"

// Spec is the benchmark value of c.
func Spec(c Config) systems.Spec {
	s := systems.Spec{
		System: "dense", Config: c.Name, Hash: c.Hash(), Dimension: modelconfig.Dimension(c.model),
		Requires: func(cache string) *systems.Requirement { return Requires(c, cache) },
		New:      func(opt systems.Options) (systems.System, error) { return New(c, opt) },
		Bench: systems.Schedule{
			Tolerance: Tolerance, ToleranceReason: ToleranceReason,
			Heavy:        c.Model != DefaultModel,
			FixturesOnly: fixturesOnly[c.Model],
			MaxDocs:      maxDocs[c.Model],
		},
	}
	if s.Bench.MaxDocs > 0 {
		s.Bench.MaxDocsReason = maxDocsReason
	}
	return s
}

// Spec is the benchmark value of c: Spec(c).
func (c Config) Spec() systems.Spec { return Spec(c) }

// Specs returns the Spec of every named config, in Configs order.
func Specs() []systems.Spec { return systems.SpecsOf(Configs(), Spec) }
