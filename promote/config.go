package promote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"

	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// Stage names, in ladder order. They are also the bench split each stage
// runs on.
const (
	StageSmallDev = "small_dev"
	StageDev      = "dev"
	StageTest     = "test"
)

// Stages lists the ladder in order.
func Stages() []string { return []string{StageSmallDev, StageDev, StageTest} }

// Paired test names for Config.Test.
const (
	TestBootstrap   = "bootstrap"   // metrics.PairedBootstrap, shift-method p-value
	TestPermutation = "permutation" // metrics.Permutation, sign-flip randomization
)

// ErrInvalidConfig is wrapped by every Config.Validate and Rule error.
var ErrInvalidConfig = errors.New("invalid promotion config")

// Config holds the tunables of the ladder.
type Config struct {
	// Dataset is the primary dataset as records name it
	// ("repoqa-python-docstring").
	Dataset string `json:"dataset"`
	// Measure is the primary measure (canonical name, "mrr").
	Measure string `json:"measure"`
	// Test names the paired test whose p-value decides: TestBootstrap or
	// TestPermutation. Both are always reported.
	Test string `json:"test"`
	// Stats are the paired decisions' statistics: the bootstrap
	// resamples and randomization rounds, the seed of both, and α, the
	// significance level of every paired decision.
	Stats metrics.Stats `json:"stats"`
	// MinGain is the smallest mean gain on the primary measure that can
	// promote or confirm (0: any significant gain).
	MinGain float64 `json:"min_gain"`
	// Rules are the do-no-harm rules of the test stage.
	Rules []Rule `json:"rules"`
}

// DefaultConfig returns MRR by paired bootstrap with DefaultStats, no
// minimum gain and DefaultRules, for dataset.
func DefaultConfig(dataset string) Config {
	return Config{Dataset: dataset, Measure: "mrr", Test: TestBootstrap, Stats: DefaultStats(), Rules: DefaultRules()}
}

// DefaultStats are metrics.DefaultStats with promote's resampling: 10,000
// rounds (a p-value resolution of 1e-4, for Holm's correction over many
// candidates) seeded with 1, as the ledger's decisions were made.
func DefaultStats() metrics.Stats {
	s := metrics.DefaultStats()
	s.Resamples, s.Seed = 10000, 1
	return s
}

// Rule is one do-no-harm rule: the candidate must not regress Measure on
// Dataset/Split by more than MaxDrop beyond noise.
type Rule struct {
	Name    string  `json:"name"`
	Measure string  `json:"measure"`
	Dataset string  `json:"dataset"`
	Split   string  `json:"split"`
	MaxDrop float64 `json:"max_drop"`
	// Alpha overrides Config.Stats.Alpha for this rule when > 0.
	Alpha float64 `json:"alpha,omitempty"`
	// When is a path.Match pattern on the primary dataset: the rule
	// applies only to promotions tuned on a matching dataset ("repoqa-*").
	// Empty means always.
	When string `json:"when,omitempty"`
	// Cell is the bench test path whose run writes the rule's results,
	// with {system} and {config} placeholders
	// ("TestRepoQA/{system}/{config}/structural"); used by callers that run
	// the bench themselves.
	Cell string `json:"cell,omitempty"`
}

// DefaultRules are the seed protocol's do-no-harm rules: recall@10 on the structural
// RepoQA split must not regress (the bench runs it whole, split "all",
// whatever -split says), and a RepoQA-tuned promotion must not regress
// DS-1000 (ranked) on its test split.
func DefaultRules() []Rule {
	return []Rule{
		{Name: "structural-recall", Measure: "recall@10", Dataset: "repoqa-structural", Split: "all",
			Cell: "TestRepoQA/{system}/{config}/structural"},
		{Name: "ds1000-test", Measure: "recall@10", Dataset: "coderag-ds1000-ranked", Split: "test",
			When: "repoqa-*", Cell: "TestCodeRAG/{system}/{config}/ds1000-ranked"},
	}
}

// Applies reports whether r applies to a promotion tuned on dataset.
func (r Rule) Applies(dataset string) bool {
	if r.When == "" {
		return true
	}
	ok, _ := path.Match(r.When, dataset)
	return ok
}

// Validate reports the first problem of c.
func (c Config) Validate() error {
	if c.Dataset == "" {
		return fmt.Errorf("%w: no primary dataset", ErrInvalidConfig)
	}
	if _, err := metrics.ParseMeasure(c.Measure); err != nil {
		return fmt.Errorf("%w: primary measure: %v", ErrInvalidConfig, err)
	}
	if !(c.Stats.Alpha > 0 && c.Stats.Alpha < 1) {
		return fmt.Errorf("%w: alpha %v: want 0 < alpha < 1", ErrInvalidConfig, c.Stats.Alpha)
	}
	switch c.Test {
	case TestBootstrap, TestPermutation:
	default:
		return fmt.Errorf("%w: test %q: want %q or %q", ErrInvalidConfig, c.Test, TestBootstrap, TestPermutation)
	}
	if c.Stats.Resamples < 100 {
		return fmt.Errorf("%w: resamples %d: want at least 100", ErrInvalidConfig, c.Stats.Resamples)
	}
	if c.MinGain < 0 {
		return fmt.Errorf("%w: min gain %v is negative", ErrInvalidConfig, c.MinGain)
	}
	seen := map[string]bool{}
	for i, r := range c.Rules {
		if err := r.validate(); err != nil {
			return fmt.Errorf("rule %d: %w", i+1, err)
		}
		if seen[r.Name] {
			return fmt.Errorf("%w: rule %d: duplicate name %q", ErrInvalidConfig, i+1, r.Name)
		}
		seen[r.Name] = true
	}
	return nil
}

func (r Rule) validate() error {
	switch {
	case r.Name == "":
		return fmt.Errorf("%w: rule has no name", ErrInvalidConfig)
	case r.Dataset == "" || r.Split == "":
		return fmt.Errorf("%w: rule %s: dataset and split are required", ErrInvalidConfig, r.Name)
	case r.MaxDrop < 0:
		return fmt.Errorf("%w: rule %s: max_drop %v is negative", ErrInvalidConfig, r.Name, r.MaxDrop)
	case r.Alpha < 0 || r.Alpha >= 1:
		return fmt.Errorf("%w: rule %s: alpha %v: want 0 (inherit) or 0 < alpha < 1", ErrInvalidConfig, r.Name, r.Alpha)
	}
	if _, err := metrics.ParseMeasure(r.Measure); err != nil {
		return fmt.Errorf("%w: rule %s: %v", ErrInvalidConfig, r.Name, err)
	}
	if r.When != "" {
		if _, err := path.Match(r.When, ""); err != nil {
			return fmt.Errorf("%w: rule %s: when %q: %v", ErrInvalidConfig, r.Name, r.When, err)
		}
	}
	return nil
}

// ReadRules reads a JSON array of rules from file, rejecting unknown
// fields.
func ReadRules(file string) ([]Rule, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rules []Rule
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		return nil, datafile.JSONError(file, b, err)
	}
	for i, r := range rules {
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("%s: rule %d: %w", file, i+1, err)
		}
	}
	return rules, nil
}
