package catalogue

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// giantBytes is what TestRepoQALangsNoGoldInGiantChunk calls a giant chunk
// around a gold: larger than the doc datasets' MaxChunkBytes and than
// twice the gold's own text.
func giantBytes(body string) int { return max(langsMaxChunkBytes, 2*len(body)) }

// TestRepoQALangsNoGoldInGiantChunk chunks every repoqa-langs doc
// dataset's corpora as the catalogue does and checks that every gold has
// a chunk that holds it whole and is not giant (giantBytes): with
// chunk.DefaultOptions two C++ gold were held only by module chunks of
// 13.9 KB (polybar) and 194 KB (seastar) at the commit issue 41 audited.
func TestRepoQALangsNoGoldInGiantChunk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: chunks five languages' corpora")
	}
	f := RepoQALangs()
	for _, d := range f.Datasets {
		if !strings.HasSuffix(d.Name, "-doc") {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			dir := testenv.MustHaveData(t, "repoqa/repoqa-"+strings.TrimSuffix(d.Name, "-doc")+"-corpora.json.gz")
			dir = strings.TrimSuffix(dir, "/repoqa/repoqa-"+strings.TrimSuffix(d.Name, "-doc")+"-corpora.json.gz")
			ds, err := d.Load(dir, datasets.SplitAll)
			if err != nil {
				t.Fatal(err)
			}
			if d.Chunking == nil {
				t.Fatalf("%s has no chunking of its own", d.Name)
			}
			changed, total := 0, 0
			for id, c := range ds.Corpora {
				opt := d.Chunking(id)
				cc, counts, err := chunk.Corpus(c, opt)
				if err != nil {
					t.Fatal(err)
				}
				def, _, err := chunk.Corpus(c, chunk.DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				texts := map[string]bool{}
				for _, doc := range def.Docs {
					texts[doc.Path+"\x00"+doc.Text] = true
				}
				for _, doc := range cc.Docs {
					total++
					if !texts[doc.Path+"\x00"+doc.Text] {
						changed++
					}
				}
				if os.Getenv("RETRIEVALBENCH_AUDIT_DIR") != "" {
					t.Logf("%s: %v", id, counts)
				}
				for _, tk := range ds.Tasks {
					if tk.CorpusID != id {
						continue
					}
					g := tk.Gold[0]
					p, _, _ := strings.Cut(g.ID, "#")
					best := -1
					for _, doc := range cc.Docs {
						if doc.Path == p && strings.Contains(doc.Text, g.Body) && (best < 0 || len(doc.Text) < best) {
							best = len(doc.Text)
						}
					}
					switch {
					case best < 0:
						t.Errorf("%s: no chunk holds the gold whole", tk.ID)
					case best > giantBytes(g.Body):
						t.Errorf("%s: the smallest chunk holding the gold is %d bytes (gold %d)", tk.ID, best, len(g.Body))
					}
				}
			}
			t.Logf("%s: %d chunks, %s differ from chunk.DefaultOptions'", d.Name, total, fmt.Sprint(changed))
		})
	}
}
