package metrics

import "math"

// The token measures: what the context a system hands an agent costs, and
// what it is worth within a token budget (docs/judging.md, "Tokens").
// They read Ranking.Tokens (Options.Tokens), the tokens of each ranked
// document's text under the run's tokenizer, and are not trec_eval's.
//
// A budget B takes the ranked texts in rank order, whole while their tokens
// add up to at most B; the first that does not fit is cut at B, and counts
// with the share of its tokens that fit (its weight, BudgetWeights); the
// rest are not delivered. A composite answer is one ranked document.
var (
	// TokensAt is tokens@k: the tokens of the top k documents' texts
	// (fewer when the list is shorter). Lower is better.
	TokensAt = &Def{Name: "tokens", Label: "tokens", Cut: AtCutoff, Lower: true, Score: func(r *Ranking, k int) float64 {
		n := min(k, len(r.Grades))
		if len(r.Tokens) < n {
			return math.NaN()
		}
		sum := 0
		for _, t := range r.Tokens[:n] {
			sum += t
		}
		return float64(sum)
	}}
	// CoveredTok is covered_tok@B: the share of the relevant units (grade
	// at least the relevance level) whose credited document is delivered
	// within B tokens, each counted with its weight.
	CoveredTok = &Def{Name: "covered_tok", Label: "covered", Cut: AtCutoff, Score: func(r *Ranking, b int) float64 {
		w := BudgetWeights(r.Tokens, len(r.Grades), b)
		if w == nil {
			return math.NaN()
		}
		if r.NumRel == 0 {
			return 0
		}
		sum := 0.0
		for i, g := range r.Grades {
			if g >= r.Level {
				sum += w[i]
			}
		}
		return sum / float64(r.NumRel)
	}}
	// NDCGTok is ndcg_tok@B: nDCG (gain the grade, discount log2(rank+1))
	// with each document's gain times its weight within B tokens, over the
	// ideal DCG of every judged unit (the budget binds the system, not the
	// ideal).
	NDCGTok = &Def{Name: "ndcg_tok", Label: "nDCG_tok", Cut: AtCutoff, Score: func(r *Ranking, b int) float64 {
		w := BudgetWeights(r.Tokens, len(r.Grades), b)
		if w == nil {
			return math.NaN()
		}
		var dcg, idcg float64
		for i, g := range r.Grades {
			if g > 0 && w[i] > 0 {
				dcg += w[i] * float64(g) / discount(i)
			}
		}
		for i, g := range r.Ideal {
			idcg += g / discount(i)
		}
		if idcg > 0 {
			return dcg / idcg
		}
		return 0
	}}
)

// TokenDefs returns the token measures.
func TokenDefs() []*Def { return []*Def{TokensAt, CoveredTok, NDCGTok} }

// Budgets are the token budgets every run measures: 1k, 2k, 4k and 8k
// tokens.
var Budgets = []int{1000, 2000, 4000, 8000}

// TokensDepth is the k of tokens@k a run measures.
const TokensDepth = 10

// TokenMeasures returns the token measures a run reports: tokens@10, then
// covered_tok and ndcg_tok at each of Budgets.
func TokenMeasures() []Measure {
	ms := []Measure{TokensAt.At(TokensDepth)}
	for _, b := range Budgets {
		ms = append(ms, CoveredTok.At(b))
	}
	for _, b := range Budgets {
		ms = append(ms, NDCGTok.At(b))
	}
	return ms
}

// IsToken reports whether m is a token measure, by name.
func IsToken(m Measure) bool {
	for _, d := range TokenDefs() {
		if m.Def != nil && m.Name == d.Name {
			return true
		}
	}
	return false
}

// TokensNeeded is how many leading documents of a ranking of n whose
// tokens are tokens (each counted as it is asked for) every token measure
// reads: the top TokensDepth, and those until the largest budget is spent.
// A caller that counts lazily counts these and no more.
func TokensNeeded(n int, count func(i int) int) []int {
	largest := 0
	for _, b := range Budgets {
		largest = max(largest, b)
	}
	var out []int
	sum := 0
	for i := 0; i < n && (i < TokensDepth || sum < largest); i++ {
		t := count(i)
		out = append(out, t)
		sum += t
	}
	return out
}

// BudgetWeights returns the weight of each of the n ranked documents
// within budget b tokens: 1 for a document delivered whole (the tokens up
// to and including it at most b), (b − tokens before it) / its tokens for
// the one cut, 0 for those after. Nil when tokens stops before the budget
// is spent (the documents beyond were not counted).
func BudgetWeights(tokens []int, n, b int) []float64 {
	w := make([]float64, n)
	used := 0
	for i := range n {
		if used >= b {
			return w
		}
		if i >= len(tokens) {
			return nil
		}
		t := tokens[i]
		switch {
		case used+t <= b:
			w[i] = 1
		default:
			w[i] = float64(b-used) / float64(t)
		}
		used += t
	}
	return w
}
