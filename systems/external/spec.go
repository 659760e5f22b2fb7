package external

import (
	"context"

	"github.com/retrievalbench/retrievalbench/systems"
)

// Spec is the benchmark value of cfg: named, hashed and checked as the config
// says (a config without tolerance_reason gets one that states no more than
// the check does), composite when its results are one blob, requiring what its
// "requires" lists (the first unmet requirement is reported).
func Spec(cfg *Config) systems.Spec {
	reason := cfg.ToleranceReason
	if reason == "" && cfg.Tolerance == 0 {
		// Nothing here has compared two runs of the tool, so the reason
		// claims no determinism: it says what the check does.
		reason = "none given: the config sets no tolerance, so any drop below golden fails; determinism across processes is not measured"
	}
	return systems.Spec{
		System: cfg.System, Config: cfg.Config, Hash: cfg.Hash(),
		Composite: cfg.Result.From == FromBlob,
		NoDocIDs:  noDocIDs(cfg),
		Bench: systems.Schedule{
			Tolerance: cfg.Tolerance, ToleranceReason: reason,
			Heavy: cfg.Heavy, FixturesOnly: cfg.FixturesOnly, Only: cfg.Only,
			MaxDocs: cfg.MaxDocs, MaxDocsReason: cfg.MaxDocsReason,
			Unsupported: unsupported(cfg),
		},
		Requires: func(string) *systems.Requirement {
			if u := cfg.Unmet(); len(u) > 0 {
				return &systems.Requirement{Kind: u[0].Kind, Reason: u[0].Reason}
			}
			return nil
		},
		New: func(opt systems.Options) (systems.System, error) { return New(cfg, opt) },
	}
}

// unsupported is cfg's "unsupported" list as the Schedule's.
func unsupported(cfg *Config) []systems.Unsupported {
	var out []systems.Unsupported
	for _, u := range cfg.Unsupported {
		out = append(out, systems.Unsupported{Datasets: u.Datasets, Reason: u.Reason})
	}
	return out
}

// Versions reports what the system runs on, for golden files: the config's
// declared versions and its version command's output.
func (s *System) Versions() map[string]string {
	v, err := s.cfg.Versions(context.Background())
	if err != nil {
		return map[string]string{s.cfg.System: "unknown: " + err.Error()}
	}
	return v
}

// noDocIDs says why cfg's system cannot run on a collection judged by doc
// id, whose docs have no paths ("" when it can): it gets the corpus as
// files (which such a collection cannot be written as) or maps no
// result.doc_id. A system that reads no corpus (corpus.none: a hosted
// service answering by text or blob) runs anywhere.
func noDocIDs(cfg *Config) string {
	switch {
	case cfg.Corpus.None:
		return ""
	case cfg.Result.DocID == "":
		return "external system " + cfg.Name() + " returns locations, not document ids (its config maps no result.doc_id and sets no corpus.jsonl; see docs/external-systems.md)"
	case !cfg.Corpus.JSONL:
		return "external system " + cfg.Name() + " gets the corpus as files, which a collection without paths cannot be (its config sets no corpus.jsonl)"
	}
	return ""
}
