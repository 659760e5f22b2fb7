package systems

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Spec names one configuration of a system and builds it. It is the value a
// benchmark is handed: the runner checks it against its golden file, a hybrid fuses
// several, a graph expands one. A system package offers a Spec per named
// config (bm25.Spec, dense.Spec, …); a user's own system, or an external one
// (systems/external), is a Spec the user builds. Nothing is registered.
//
// Its fields say what the system is (names, hash, how it is judged, what
// it needs, how it is built); Bench says how the bench schedules it and
// checks it.
type Spec struct {
	System string // "bm25", "dense", "pydocs-mcp", … (a subtest name)
	Config string // config name within the system (a subtest name)
	// Hash covers every field of the config that can change a result;
	// golden files record it, so a changed config is a stale baseline. Any
	// non-empty string that changes exactly when results may change: a
	// version you bump by hand ("trigram-tfidf-v2") or a hash of the
	// config's fields (sysconfig's, for the built-in systems).
	Hash string
	// Composite marks a system that returns one text blob per query (a
	// hosted documentation system): the blob is judged by content as the
	// single rank-1 item, and only rank-1 measures are defined.
	Composite bool
	// NoDocIDs, when set, says why the system cannot name documents by id
	// (an external system whose config maps no result.doc_id returns
	// locations only): a cell on a collection judged by doc id (docs
	// without paths: TREC, BEIR, CoSQA) skips by design with this reason
	// instead of failing.
	NoDocIDs string
	// Dimension is the vector dimension the model manifest gives the
	// system's embedding model (dense, static), 0 for a system without
	// one: a campaign checks the measured one (VectorDimOf) against it.
	Dimension int
	// Requires reports what the config needs under cacheDir and does not
	// have (nil: nothing missing). Nil means it needs nothing beyond the build.
	Requires func(cacheDir string) *Requirement
	// New builds a fresh system for one corpus.
	New func(opt Options) (System, error)

	// Bench is how the bench schedules the system's cells and checks them.
	Bench Schedule
}

// Schedule is how the bench schedules a system and checks its cells: which
// cells run at which size, and how far below its baseline a cell may fall.
// None of it changes what a cell returns, so none of it is hashed.
type Schedule struct {
	// Tolerance is how far below golden a measure may fall before the
	// golden check fails; 0 for deterministic systems. ToleranceReason says
	// why. The check reads both from here, never from the golden file.
	Tolerance       float64
	ToleranceReason string
	// Heavy marks configs several times slower to index than the default
	// (embedding with a large model, an external tool); the runner runs them
	// on fewer datasets at the CI size.
	Heavy bool
	// FixturesOnly marks configs slower still (a 768-d model embedding a few
	// texts a second on 2 cores): at the CI size they run on the hermetic
	// fixtures only unless asked (benchtest's -heavy).
	FixturesOnly bool
	// MaxDocs, when positive, is the most documents (chunks, over all of a
	// dataset's corpora) the config indexes in one cell unless asked
	// (benchtest's -heavy): a bigger dataset's cell skips by design, at every
	// size, naming its size and the command that runs it anyway. A config
	// that embeds a few texts a second sets it so that -size=full finishes
	// in hours, not days; MaxDocsReason says what it costs.
	MaxDocs       int
	MaxDocsReason string
	// Only limits the cells the system runs in to datasets matching one of
	// these "family/dataset" patterns (path.Match: "repoqa/*",
	// "coderag/ds1000-composite"); empty means every dataset. A system built
	// for repositories has no cell on a collection of abstracts.
	Only []string
	// Unsupported lists datasets the system cannot do, each with the
	// reason (a peer that does not read the language's files): their
	// cells exist, and skip by design with "SKIP (unsupported): <system/
	// config> <reason>", whether or not Only names them, so a reader of a
	// run sees a peer's missing language and why. An entry wins over
	// Only.
	Unsupported []Unsupported
}

// Unsupported is one kind of dataset a system cannot do, and why.
type Unsupported struct {
	// Datasets is a "family/dataset" pattern, as in Only ("repoqa-langs/go-*").
	Datasets string
	// Reason states the fact ("pydocs-mcp 0.8.1 indexes no .go files:
	// its ALLOWED_EXTENSIONS …"), with its source.
	Reason string
}

// SpecsOf returns spec(c) for every config of cs, in order: a system
// package's Specs is SpecsOf(Configs(), Spec).
func SpecsOf[C any](cs []C, spec func(C) Spec) []Spec {
	out := make([]Spec, 0, len(cs))
	for _, c := range cs {
		out = append(out, spec(c))
	}
	return out
}

// Name is "system/config".
func (s Spec) Name() string { return s.System + "/" + s.Config }

// RunsOn reports whether s runs a cell on dataset of family: Only names
// the dataset (or is empty) and no Unsupported entry does.
func (s Schedule) RunsOn(family, dataset string) bool {
	if _, ok := s.UnsupportedOn(family, dataset); ok {
		return false
	}
	if len(s.Only) == 0 {
		return true
	}
	for _, p := range s.Only {
		if ok, _ := path.Match(p, family+"/"+dataset); ok {
			return true
		}
	}
	return false
}

// UnsupportedOn returns the reason of the first Unsupported entry that
// names dataset of family, and whether there is one.
func (s Schedule) UnsupportedOn(family, dataset string) (string, bool) {
	for _, u := range s.Unsupported {
		if ok, _ := path.Match(u.Datasets, family+"/"+dataset); ok {
			return u.Reason, true
		}
	}
	return "", false
}

// HasCell reports whether s has a cell on dataset of family: one it runs
// (RunsOn) or one that skips as unsupported.
func (s Schedule) HasCell(family, dataset string) bool {
	_, unsupported := s.UnsupportedOn(family, dataset)
	return unsupported || s.RunsOn(family, dataset)
}

// Missing reports what s needs under cacheDir and does not have, nil if
// nothing (or if s declares no requirement).
func (s Spec) Missing(cacheDir string) *Requirement {
	if s.Requires == nil {
		return nil
	}
	return s.Requires(cacheDir)
}

// Validate reports a Spec that cannot be run or named.
func (s Spec) Validate() error {
	switch {
	case s.System == "" || s.Config == "":
		return fmt.Errorf("spec %q: system and config names are required", s.Name())
	case s.New == nil:
		return fmt.Errorf("spec %s: no constructor (New is nil)", s.Name())
	case s.Hash == "":
		return fmt.Errorf("spec %s: no config hash", s.Name())
	case s.Bench.Tolerance < 0:
		return fmt.Errorf("spec %s: negative tolerance %v", s.Name(), s.Bench.Tolerance)
	}
	for _, p := range s.Bench.Only {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("spec %s: only %q: %v", s.Name(), p, err)
		}
	}
	for i, u := range s.Bench.Unsupported {
		_, err := path.Match(u.Datasets, "")
		if err == nil && strings.Count(u.Datasets, "/") != 1 {
			err = errors.New(`want a "family/dataset" pattern`)
		}
		if err != nil {
			return fmt.Errorf("spec %s: unsupported[%d] datasets %q: %v", s.Name(), i, u.Datasets, err)
		}
		if strings.TrimSpace(u.Reason) == "" {
			return fmt.Errorf("spec %s: unsupported[%d] (%s): no reason", s.Name(), i, u.Datasets)
		}
	}
	return nil
}

// Requirement kinds: what a run can lack. They match the words of
// RETRIEVALBENCH_REQUIRE (internal/testenv), which turns a skip for that
// kind into a failure.
const (
	NeedsONNX   = "onnx"   // the ONNX Runtime shared library
	NeedsModels = "models" // embedding model files
	NeedsPeer   = "peers"  // an external system's installation
)

// Requirement is one thing a config needs and does not have.
type Requirement struct {
	Kind   string // NeedsONNX, NeedsModels, NeedsPeer
	Reason string // what is missing and how to get it ("run make setup")
}

func (r *Requirement) Error() string { return r.Kind + ": " + r.Reason }
