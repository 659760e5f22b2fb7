package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTokenMeasures checks the token measures against values computed by
// hand (docs/judging.md, "Tokens").
func TestTokenMeasures(t *testing.T) {
	log3 := math.Log2(3)
	idcg := 2 + 1/log3 // the ideal: grade 2, then grade 1
	cases := []struct {
		name   string
		reason string
		ranked []string
		qrels  map[string]int
		tokens []int
		m      Measure
		want   float64
	}{
		{"tokens@10 short list", "fewer than k documents: all of them", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, TokensAt.At(10), 2300},
		{"tokens@2", "the top 2 only", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, TokensAt.At(2), 1300},
		{"covered@1000 cut non-relevant", "500 whole, then x cut at 5/8, b beyond: 1 of 2 units", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, CoveredTok.At(1000), 0.5},
		{"ndcg_tok@1000", "only a's gain 1 at rank 1", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, NDCGTok.At(1000), 1 / idcg},
		{"covered@2000 cut relevant", "b cut: 700 of its 1000 tokens fit, weight 0.7", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, CoveredTok.At(2000), (1 + 0.7) / 2},
		{"ndcg_tok@2000", "a's 1 + 0.7 × b's 2 / log2(4)", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, NDCGTok.At(2000), (1 + 0.7*2/2) / idcg},
		{"ndcg_tok@8000 whole", "everything fits: plain nDCG", []string{"a", "x", "b"}, map[string]int{"a": 1, "b": 2}, []int{500, 800, 1000}, NDCGTok.At(8000), (1 + 2/2.0) / idcg},
		{"exact fit", "a document ending exactly at the budget is whole", []string{"b"}, map[string]int{"b": 2}, []int{1000}, CoveredTok.At(1000), 1},
		{"composite blob cut", "one 5000-token blob within 1000: a fifth of it", []string{"blob"}, map[string]int{"blob": 2}, []int{5000}, NDCGTok.At(1000), 0.2},
		{"composite covered", "the same blob's one unit, weight 0.2", []string{"blob"}, map[string]int{"blob": 2}, []int{5000}, CoveredTok.At(1000), 0.2},
		{"no relevant", "no unit to cover: 0", []string{"x"}, map[string]int{}, []int{10}, CoveredTok.At(1000), 0},
		{"not counted", "tokens stop before the budget is spent: undefined", []string{"a", "x", "b"}, map[string]int{"a": 1}, []int{100}, CoveredTok.At(1000), math.NaN()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Score(c.ranked, c.qrels, []Measure{c.m}, Options{Tokens: c.tokens})
			require.NoError(t, err)
			if math.IsNaN(c.want) {
				require.True(t, math.IsNaN(got[0]), "%s: got %v", c.reason, got[0])
				return
			}
			require.InDelta(t, c.want, got[0], 1e-12, c.reason)
		})
	}
}

func TestBudgetWeights(t *testing.T) {
	require.Equal(t, []float64{1, 0.625, 0}, BudgetWeights([]int{500, 800, 1000}, 3, 1000))
	require.Equal(t, []float64{1, 0, 0}, BudgetWeights([]int{1000, 5}, 3, 1000), "spent budget: the rest need no count")
	require.Nil(t, BudgetWeights([]int{10}, 2, 1000))
}

func TestTokensNeeded(t *testing.T) {
	asked := 0
	got := TokensNeeded(100, func(int) int { asked++; return 3000 })
	require.Len(t, got, TokensDepth, "8000 tokens are spent by the 3rd, tokens@10 needs 10")
	asked = 0
	got = TokensNeeded(100, func(int) int { asked++; return 100 })
	require.Len(t, got, 80, "80 × 100 tokens spend the largest budget, 8000")
	require.Equal(t, 80, asked)
}

func TestParseTokenMeasures(t *testing.T) {
	for _, m := range TokenMeasures() {
		got, err := ParseRecorded(m.String())
		require.NoError(t, err)
		require.True(t, IsToken(got), m.String())
		require.Equal(t, m.Def, got.Def, "a recorded token measure keeps its direction (tokens: lower is better)")
	}
	require.Equal(t, "tokens@10", TokenMeasures()[0].String())
	m, _ := ParseRecorded("ndcg@10")
	require.False(t, IsToken(m))
}

// TestTokenMeasuresPython checks the token measures of 300 seeded random
// rankings against testdata/budget.py, an independent implementation of
// their definition. It skips (loudly) without python3.
func TestTokenMeasuresPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("SKIP: no python3 on PATH: the token measures' cross-check against testdata/budget.py did not run")
	}
	rng := rand.New(rand.NewPCG(40, 1))
	type ranking struct {
		Ranked []string       `json:"ranked"`
		Tokens []int          `json:"tokens"`
		Qrels  map[string]int `json:"qrels"`
	}
	var rs []ranking
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for range 300 {
		n := rng.IntN(30)
		r := ranking{Ranked: []string{}, Tokens: []int{}, Qrels: map[string]int{}}
		for i := range n {
			u := fmt.Sprintf("d%d", i)
			r.Ranked = append(r.Ranked, u)
			r.Tokens = append(r.Tokens, rng.IntN(1500)+rng.IntN(2)*rng.IntN(6000))
			if rng.IntN(4) == 0 {
				r.Qrels[u] = 1 + rng.IntN(3)
			}
		}
		for j := range rng.IntN(3) { // relevant units no system found
			r.Qrels[fmt.Sprintf("missed%d", j)] = 1 + rng.IntN(2)
		}
		rs = append(rs, r)
		require.NoError(t, enc.Encode(r))
	}
	cmd := exec.Command(py, "testdata/budget.py")
	cmd.Stdin = &in
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(rs))
	ms := TokenMeasures()
	checked := 0
	for i, r := range rs {
		var want map[string]float64
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &want))
		got, err := Score(r.Ranked, r.Qrels, ms, Options{Tokens: r.Tokens})
		require.NoError(t, err)
		for j, m := range ms {
			w, ok := want[m.String()]
			require.True(t, ok, "budget.py gives no %s", m)
			require.InDelta(t, w, got[j], 1e-9, "ranking %d, %s", i, m)
			checked++
		}
	}
	t.Logf("%d values of %d rankings equal budget.py's", checked, len(rs))
}
