package systems

import (
	"strings"
	"testing"
)

func TestScheduleUnsupported(t *testing.T) {
	s := Schedule{
		Only:        []string{"repoqa/*", "repoqa-langs/java-doc"},
		Unsupported: []Unsupported{{Datasets: "repoqa-langs/go-*", Reason: "no .go files"}, {Datasets: "repoqa/official-desc", Reason: "no descriptions"}},
	}
	for _, tt := range []struct {
		family, dataset string
		runs, cell      bool
		reason          string
	}{
		{"repoqa", "docstring", true, true, ""},
		{"repoqa-langs", "java-doc", true, true, ""},
		{"repoqa-langs", "go-doc", false, true, "no .go files"},        // unsupported, not in Only: a cell that skips
		{"repoqa-langs", "go-structural", false, true, "no .go files"}, // the pattern's *
		{"repoqa", "official-desc", false, true, "no descriptions"},    // unsupported wins over Only
		{"repoqa-langs", "rust-doc", false, false, ""},                 // neither: no cell
		{"sweqa", "sweqa", false, false, ""},
	} {
		name := tt.family + "/" + tt.dataset
		if got := s.RunsOn(tt.family, tt.dataset); got != tt.runs {
			t.Errorf("RunsOn(%s) = %v, want %v", name, got, tt.runs)
		}
		if got := s.HasCell(tt.family, tt.dataset); got != tt.cell {
			t.Errorf("HasCell(%s) = %v, want %v", name, got, tt.cell)
		}
		reason, ok := s.UnsupportedOn(tt.family, tt.dataset)
		if reason != tt.reason || ok != (tt.reason != "") {
			t.Errorf("UnsupportedOn(%s) = %q, %v, want %q", name, reason, ok, tt.reason)
		}
	}
	// No Only: every dataset runs but the unsupported ones.
	all := Schedule{Unsupported: s.Unsupported[:1]}
	if all.RunsOn("repoqa-langs", "go-doc") || !all.HasCell("repoqa-langs", "go-doc") || !all.RunsOn("trec", "vaswani") {
		t.Errorf("without Only: RunsOn(go-doc) %v HasCell(go-doc) %v RunsOn(vaswani) %v, want false true true",
			all.RunsOn("repoqa-langs", "go-doc"), all.HasCell("repoqa-langs", "go-doc"), all.RunsOn("trec", "vaswani"))
	}
}

func TestValidateUnsupported(t *testing.T) {
	base := Spec{System: "peer", Config: "c", Hash: "h", New: func(Options) (System, error) { return nil, nil }}
	for _, tt := range []struct {
		name string
		u    Unsupported
		want string // "" valid
	}{
		{"ok", Unsupported{Datasets: "repoqa-langs/cpp-doc", Reason: "no .cpp files"}, ""},
		{"no reason", Unsupported{Datasets: "repoqa-langs/cpp-doc", Reason: "  "}, "spec peer/c: unsupported[0] (repoqa-langs/cpp-doc): no reason"},
		{"bad pattern", Unsupported{Datasets: "repoqa-langs/[", Reason: "r"}, `spec peer/c: unsupported[0] datasets "repoqa-langs/[": syntax error in pattern`},
		{"no family", Unsupported{Datasets: "cpp-doc", Reason: "r"}, `spec peer/c: unsupported[0] datasets "cpp-doc": want a "family/dataset" pattern`},
		{"empty", Unsupported{Reason: "r"}, `unsupported[0] datasets "": want a "family/dataset" pattern`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			s.Bench.Unsupported = []Unsupported{tt.u}
			err := s.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
