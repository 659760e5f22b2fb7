package corpus

import "testing"

func TestHashSeesEveryFieldAndBoundary(t *testing.T) {
	base := Corpus{ID: "r", Commit: "c1", Docs: []Doc{{ID: "a", Path: "a.py", Symbol: "f", Kind: "function", Language: "python", StartLine: 1, EndLine: 3, Text: "def f(): pass"}}}
	tests := []struct {
		name   string
		change func(c *Corpus)
		reason string
	}{
		{"commit", func(c *Corpus) { c.Commit = "c2" }, "another commit is another corpus"},
		{"text", func(c *Corpus) { c.Docs[0].Text += " " }, "one byte of text"},
		{"lines", func(c *Corpus) { c.Docs[0].EndLine = 4 }, "line ranges key chunk identity"},
		{"symbol", func(c *Corpus) { c.Docs[0].Symbol = "g" }, "symbols are searched"},
		{"boundary", func(c *Corpus) { c.Docs[0].ID, c.Docs[0].Path = "aa.py", "" }, "length prefixes keep \"a\"+\"a.py\" apart from \"aa.py\"+\"\""},
		{"order", func(c *Corpus) { c.Docs = append(c.Docs, Doc{ID: "b"}); c.Docs[0], c.Docs[1] = c.Docs[1], c.Docs[0] }, "doc order is part of the corpus"},
	}
	want := base.Hash()
	if again := base.Hash(); again != want {
		t.Fatalf("Hash is not deterministic: %s then %s", want, again)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			c.Docs = append([]Doc(nil), base.Docs...)
			tt.change(&c)
			if c.Hash() == want {
				t.Errorf("hash unchanged: %s", tt.reason)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	c := Corpus{Docs: []Doc{{ID: "x"}, {ID: "y"}}}
	m := c.Lookup()
	if len(m) != 2 || m["x"] != 0 || m["y"] != 1 {
		t.Errorf("Lookup = %v, want x→0 y→1", m)
	}
}

// TestHashIgnoresFiles: Files is the same content as whole files, so
// setting it must not make the hashes that key caches and golden files
// change.
func TestHashIgnoresFiles(t *testing.T) {
	c := Corpus{ID: "r", Docs: []Doc{{ID: "a.py#f", Path: "a.py", Symbol: "f", StartLine: 1, EndLine: 1, Text: "def f(): pass"}}}
	want := c.Hash()
	c.Files = &Corpus{ID: "r", Docs: []Doc{{ID: "a.py", Path: "a.py", Kind: "file", Text: "def f(): pass\n"}}}
	if got := c.Hash(); got != want {
		t.Errorf("Hash with Files = %s, want %s as without", got, want)
	}
}
