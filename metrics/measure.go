package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// Measure names, as Measure.Name holds them.
const (
	Hit        = "hit"
	Recall     = "recall"
	Precision  = "P"
	MRR        = "mrr"
	NDCG       = "ndcg"
	MAP        = "map"
	RPrec      = "rprec"
	PassNeedle = "pass@1-needle"
	Coverage   = "coverage"
)

// Measure names one per-query measure and its cutoff. K = 0 means the whole
// ranked list. See the package documentation for what each name computes.
type Measure struct {
	Name string
	K    int
}

// cutoffs tells, per name, whether a cutoff is allowed and whether the name
// without one is allowed.
var measureKinds = map[string]struct{ cut, whole bool }{
	Hit:        {true, true},
	Recall:     {true, true},
	Precision:  {true, true},
	MRR:        {true, true},
	NDCG:       {true, true},
	MAP:        {true, true},
	RPrec:      {false, true},
	PassNeedle: {false, true},
	Coverage:   {false, true},
}

// trecPrefixes maps trec_eval's cutoff measure prefixes to measure names.
var trecPrefixes = []struct{ prefix, name string }{
	{"success_", Hit},
	{"recall_", Recall},
	{"P_", Precision},
	{"ndcg_cut_", NDCG},
	{"map_cut_", MAP},
}

// trecWhole maps trec_eval's measure names without a cutoff to measures.
var trecWhole = map[string]Measure{
	"recip_rank": {MRR, 0},
	"ndcg":       {NDCG, 0},
	"map":        {MAP, 0},
	"Rprec":      {RPrec, 0},
	"set_P":      {Precision, 0},
	"set_recall": {Recall, 0},
}

// ParseMeasure reads a measure in this package's spelling ("hit@10",
// "recall@5", "P@5", "mrr", "mrr@10", "ndcg@10", "ndcg", "map", "map@10",
// "rprec", "pass@1-needle", "coverage"; "hit", "recall" and "P" without a
// cutoff mean the whole list) or in trec_eval's ("success_10", "recall_5",
// "P_5", "recip_rank", "ndcg_cut_10", "ndcg", "map", "map_cut_10", "Rprec",
// "set_P", "set_recall"). Cutoffs must be positive integers.
func ParseMeasure(s string) (Measure, error) {
	if m, ok := trecWhole[s]; ok {
		return m, nil
	}
	for _, p := range trecPrefixes {
		if rest, ok := strings.CutPrefix(s, p.prefix); ok {
			k, err := parseCutoff(rest)
			if err != nil {
				return Measure{}, fmt.Errorf("measure %q: %w", s, err)
			}
			return Measure{p.name, k}, nil
		}
	}
	name, cut, hasCut := strings.Cut(s, "@")
	if s == PassNeedle {
		name, hasCut = PassNeedle, false
	}
	switch strings.ToLower(name) {
	case "p":
		name = Precision
	case "hit", "recall", "mrr", "ndcg", "map", "rprec", "coverage":
		name = strings.ToLower(name)
	}
	kind, ok := measureKinds[name]
	if !ok {
		return Measure{}, fmt.Errorf("unknown measure %q", s)
	}
	if !hasCut {
		if !kind.whole {
			return Measure{}, fmt.Errorf("measure %q needs a cutoff", s)
		}
		return Measure{name, 0}, nil
	}
	if !kind.cut {
		return Measure{}, fmt.Errorf("measure %q takes no cutoff", s)
	}
	k, err := parseCutoff(cut)
	if err != nil {
		return Measure{}, fmt.Errorf("measure %q: %w", s, err)
	}
	return Measure{name, k}, nil
}

// ParseRecorded reads the name of a per-task value a result records: a
// measure ParseMeasure knows, or one another package computes in the same
// "name@k" spelling (the judge's library_resolution@1), which this package
// cannot score but whose recorded values can still be averaged and
// compared. The name must be lower-case letters, digits and underscores,
// starting with a letter; the cutoff, when there is one, a positive integer.
func ParseRecorded(s string) (Measure, error) {
	if m, err := ParseMeasure(s); err == nil {
		return m, nil
	}
	name, cut, hasCut := strings.Cut(s, "@")
	if name == "" || name[0] < 'a' || name[0] > 'z' || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) >= 0 {
		return Measure{}, fmt.Errorf("unknown measure %q", s)
	}
	if !hasCut {
		return Measure{name, 0}, nil
	}
	k, err := parseCutoff(cut)
	if err != nil {
		return Measure{}, fmt.Errorf("measure %q: %w", s, err)
	}
	return Measure{name, k}, nil
}

func parseCutoff(s string) (int, error) {
	k, err := strconv.Atoi(s)
	if err != nil || k <= 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("cutoff %q is not a positive integer", s)
	}
	return k, nil
}

// String returns the measure in this package's spelling: "hit@10", "mrr",
// "ndcg@10", "pass@1-needle". It is what ParseMeasure reads back.
func (m Measure) String() string {
	if m.K == 0 {
		return m.Name
	}
	return m.Name + "@" + strconv.Itoa(m.K)
}

// TrecName returns trec_eval's name for the measure ("success_10",
// "recip_rank", "ndcg_cut_10", "Rprec", "set_P"…), or "" when trec_eval has
// no measure with these semantics (mrr@k, hit without a cutoff,
// pass@1-needle, coverage).
func (m Measure) TrecName() string {
	k := strconv.Itoa(m.K)
	switch {
	case m.Name == Hit && m.K > 0:
		return "success_" + k
	case m.Name == Recall && m.K > 0:
		return "recall_" + k
	case m.Name == Recall:
		return "set_recall"
	case m.Name == Precision && m.K > 0:
		return "P_" + k
	case m.Name == Precision:
		return "set_P"
	case m.Name == MRR && m.K == 0:
		return "recip_rank"
	case m.Name == NDCG && m.K > 0:
		return "ndcg_cut_" + k
	case m.Name == NDCG:
		return "ndcg"
	case m.Name == MAP && m.K > 0:
		return "map_cut_" + k
	case m.Name == MAP:
		return "map"
	case m.Name == RPrec && m.K == 0:
		return "Rprec"
	}
	return ""
}

// validate reports whether m is a measure Score can compute.
func (m Measure) validate() error {
	kind, ok := measureKinds[m.Name]
	switch {
	case !ok:
		return fmt.Errorf("unknown measure %q", m.Name)
	case m.K < 0:
		return fmt.Errorf("measure %s: negative cutoff %d", m.Name, m.K)
	case m.K > 0 && !kind.cut:
		return fmt.Errorf("measure %s takes no cutoff", m.Name)
	}
	return nil
}
