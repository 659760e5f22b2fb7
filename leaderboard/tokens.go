package leaderboard

import (
	"fmt"
	"html"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TokenBudget is the budget of a dataset's token table (TokenRows): 2,000
// tokens, the second of metrics.Budgets.
const TokenBudget = 2000

// TokenRow is one system/config of a dataset's token table: what its top
// 10 hits cost in tokens against its quality, and its quality within
// TokenBudget tokens (docs/judging.md, "Tokens").
type TokenRow struct {
	Model string `json:"model"`
	// Tokens is the mean tokens@10; Quality the dataset's primary measure
	// (nil when the row does not record it: a composite answer).
	Tokens  Fixed  `json:"tokens"`
	Quality *Fixed `json:"quality,omitempty"`
	// Budgeted and Covered are ndcg_tok and covered_tok at TokenBudget.
	Budgeted Fixed `json:"ndcg_tok"`
	Covered  Fixed `json:"covered_tok"`
	// Rank is the row's rank on the board (by the primary measure);
	// BudgetRank its rank by Budgeted, ties by Covered, then by Model.
	Rank       int `json:"rank"`
	BudgetRank int `json:"budget_rank"`
	// Pareto marks the rows no other row beats on both tokens and
	// quality: none has at most its tokens and at least its quality with
	// one of them strictly better.
	Pareto bool `json:"pareto"`
}

// TokenRows returns the token table of d: the rows that record the token
// measures, in board order; none when no row does.
func (d *Dataset) TokenRows() []TokenRow {
	tokAt := metrics.TokensAt.At(metrics.TokensDepth).String()
	ndcg := metrics.NDCGTok.At(TokenBudget).String()
	cov := metrics.CoveredTok.At(TokenBudget).String()
	var out []TokenRow
	for _, r := range d.Rows {
		t, ok1 := r.Scores[tokAt]
		n, ok2 := r.Scores[ndcg]
		c, ok3 := r.Scores[cov]
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		tr := TokenRow{Model: r.Model, Tokens: t.Mean, Budgeted: n.Mean, Covered: c.Mean, Rank: r.Rank}
		if q, ok := r.Scores[d.Primary]; ok {
			v := q.Mean
			tr.Quality = &v
		}
		out = append(out, tr)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := out[order[a]], out[order[b]]
		if x.Budgeted != y.Budgeted {
			return x.Budgeted > y.Budgeted
		}
		if x.Covered != y.Covered {
			return x.Covered > y.Covered
		}
		return x.Model < y.Model
	})
	for rank, i := range order {
		out[i].BudgetRank = rank + 1
	}
	for i := range out {
		if out[i].Quality == nil {
			continue
		}
		out[i].Pareto = !slices.ContainsFunc(out, func(o TokenRow) bool {
			if o.Quality == nil {
				return false
			}
			return o.Tokens <= out[i].Tokens && *o.Quality >= *out[i].Quality &&
				(o.Tokens < out[i].Tokens || *o.Quality > *out[i].Quality)
		})
	}
	return out
}

// TokenHeader is the header of the token table.
func (d *Dataset) TokenHeader() []string {
	b := strconv.Itoa(TokenBudget)
	return []string{"#", "system/config", "tokens@10", d.Primary, "Pareto", "# at " + b + " tokens", "ndcg_tok@" + b, "covered_tok@" + b}
}

// TokenCells returns the cells of token row r.
func TokenCells(r TokenRow) []string {
	q, front := "—", ""
	if r.Quality != nil {
		q = f4(*r.Quality)
		if r.Pareto {
			front = "★"
		}
	}
	return []string{strconv.Itoa(r.Rank), r.Model, strconv.FormatFloat(float64(r.Tokens), 'f', 0, 64), q, front,
		strconv.Itoa(r.BudgetRank), f4(r.Budgeted), f4(r.Covered)}
}

const tokensAbout = "What the context costs an agent: tokens@10 is the mean tokens of the top 10 hits' text; the " +
	"Pareto front (★) are the systems no other beats on both tokens@10 and quality. Within a budget of %d tokens, hits " +
	"are taken in rank order and the last one cut: ndcg_tok and covered_tok score what fits (docs/judging.md, Tokens)."

// tokensMD renders the token table as a markdown section; "" without one.
func (d *Dataset) tokensMD() string {
	rows := d.TokenRows()
	if len(rows) == 0 {
		return ""
	}
	var w strings.Builder
	fmt.Fprintf(&w, "## Quality against tokens\n\n"+tokensAbout+"\n\n", TokenBudget)
	h := d.TokenHeader()
	w.WriteString(mdRow(h))
	w.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
	for _, r := range rows {
		w.WriteString(mdRow(TokenCells(r)))
	}
	w.WriteString("\n")
	return w.String()
}

// tokensHTML renders the token table as HTML; "" without one.
func (d *Dataset) tokensHTML() string {
	rows := d.TokenRows()
	if len(rows) == 0 {
		return ""
	}
	e := html.EscapeString
	var w strings.Builder
	fmt.Fprintf(&w, "<h3>Quality against tokens</h3>\n<p class=\"about\">%s</p>\n", e(fmt.Sprintf(tokensAbout, TokenBudget)))
	w.WriteString("<div class=\"scroll\"><table class=\"tokens\">\n<thead><tr>")
	for _, h := range d.TokenHeader() {
		fmt.Fprintf(&w, "<th onclick=\"rbSort(this)\">%s</th>", e(h))
	}
	w.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		w.WriteString("<tr>")
		for _, c := range TokenCells(r) {
			writeCell(&w, c, "")
		}
		w.WriteString("</tr>\n")
	}
	w.WriteString("</tbody>\n</table></div>\n")
	return w.String()
}

// isTokenCost reports whether measure name m is a token cost (tokens@k),
// shown as a whole number of tokens.
func isTokenCost(m string) bool {
	mm, err := metrics.ParseRecorded(m)
	return err == nil && metrics.IsToken(mm) && mm.Lower
}

// tokenStat renders a token cost's mean and CI in whole tokens.
func tokenStat(s resultfmt.Stat) string {
	f0 := func(v Fixed) string { return strconv.FormatFloat(float64(v), 'f', 0, 64) }
	return f0(s.Mean) + " [" + f0(s.Low) + ", " + f0(s.High) + "]"
}
