package external

import (
	"context"

	"github.com/retrievalbench/retrievalbench/systems"
)

// Spec is the benchmark value of cfg: named, hashed and gated as the config
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
		Tolerance: cfg.Tolerance, ToleranceReason: reason,
		Heavy: cfg.Heavy, Composite: cfg.Result.From == FromBlob, Only: cfg.Only,
		MaxDocs: cfg.MaxDocs, MaxDocsReason: cfg.MaxDocsReason,
		Requires: func(string) *systems.Requirement {
			if u := cfg.Unmet(); len(u) > 0 {
				return &systems.Requirement{Kind: u[0].Kind, Reason: u[0].Reason}
			}
			return nil
		},
		New: func(opt systems.Options) (systems.System, error) { return New(cfg, opt) },
	}
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
