package leaderboard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestModelsTable: index.md lists each model once with its source,
// dimension, parameter count (in millions; unknown for a server's) and
// engine, and the dataset page the model of each row.
func TestModelsTable(t *testing.T) {
	recs, cells := modelFixture()
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range b.Models {
		ids = append(ids, m.ID+" "+strings.Join(m.UsedBy, ","))
	}
	if diff := cmp.Diff([]string{"served dense/served", "small dense/small"}, ids); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	idx := b.Markdown()
	for _, want := range []string{
		"## Embedding models",
		"| model | source | dimension | parameters | engine | run by |",
		"| served | endpoint | 1024 | — | server (Qwen/Qwen3-Embedding-0.6B@c54f2e6) | dense/served |",
		"| small | folder | 384 | 22.6M | in-process | dense/small |",
	} {
		if !strings.Contains(idx, want) {
			t.Errorf("index.md lacks %q:\n%s", want, idx)
		}
	}
	page := b.DatasetMarkdown(b.Datasets[0])
	for _, want := range []string{"## Models", "| dense/small | small | folder | 384 | 22.6M | in-process |"} {
		if !strings.Contains(page, want) {
			t.Errorf("alpha page lacks %q:\n%s", want, page)
		}
	}
	if beta := b.DatasetMarkdown(b.Datasets[1]); strings.Contains(beta, "## Models") {
		t.Errorf("beta has no embedding model but a Models section:\n%s", beta)
	}
	html := string(b.HTML(nil))
	if !strings.Contains(html, `<td>small</td><td>folder</td><td data-v="384">384</td><td data-v="22565376">22.6M</td><td>in-process</td>`) {
		t.Errorf("index.html lacks small's model row")
	}
	// A board without embedding models has no such table.
	plainRecs, plainCells := fixtureBoard()
	plain, err := Build(plainRecs, plainCells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Markdown(), "Embedding models") || strings.Contains(string(plain.HTML(nil)), `id="models"`) {
		t.Error("a board without models shows a models table")
	}
}

func TestParametersFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "—", 512: "512", 22_565_376: "22.6M", 108_895_872: "108.9M", 595_776_512: "595.8M", 7_069_016_064: "7.07B"} {
		if got := parameters(n); got != want {
			t.Errorf("parameters(%d) = %q, want %q", n, got, want)
		}
	}
}
