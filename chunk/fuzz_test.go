package chunk

import (
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

var fuzzPaths = []string{"f.py", "f.go", "F.java", "f.ts", "f.tsx", "f.rs", "f.cc", "f.txt"}

// FuzzCorpus checks on arbitrary input that Corpus and Tokens never panic,
// that chunks partition the file's lines, and that every function chunk
// of a file that parses is token-contained in it.
func FuzzCorpus(f *testing.F) {
	seeds := []string{
		"def f():\n    return 1\n",
		"class A:\n    @d\n    def m(self):\n        '''doc'''\n",
		"package p\n\nfunc (s *S[T]) M() {}\n",
		"class A { void m() {} }\n",
		"export const f = () => `a ${b}`;\n@D class C { m() {} }\n",
		"impl<T> X<T> { fn f(&self) -> &'a str { r#\"x\"# } }\n",
		"namespace n { template <class T> struct S { int f() { return 1'0; } }; }\n",
		"/* unterminated",
		"\"unterminated\ndef g(): pass\r\n",
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, src string) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		lang := codetext.LanguageOf(path)
		c := &corpus.Corpus{ID: "fuzz", Docs: []corpus.Doc{{ID: path, Path: path, Kind: KindFile, Language: lang, Text: src}}}
		out, st, err := Corpus(c, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Docs) == 0 || st.Chunks != len(out.Docs) {
			t.Fatalf("%d docs, stats %+v", len(out.Docs), st)
		}
		checkPartition(t, "fuzz", c.Docs[0], out.Docs)

		// Size limits: still a partition, ids unique, parts within the
		// line limit (but a single line); KeepFunctions only moves cuts.
		for _, keep := range []bool{false, true} {
			opt := Options{MinLines: 1, MaxChunkLines: 2 + int(which)%4, MaxChunkBytes: 24 + int(which)%64, KeepFunctions: keep}
			cut, _, err := Corpus(c, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkPartition(t, "fuzz cut", c.Docs[0], cut.Docs)
			ids := map[string]bool{}
			for _, d := range cut.Docs {
				if ids[d.ID] {
					t.Fatalf("duplicate id %s", d.ID)
				}
				ids[d.ID] = true
				if n := strings.Count(strings.TrimRight(d.Text, "\r\n"), "\n") + 1; !keep && n > opt.MaxChunkLines && d.StartLine != d.EndLine {
					t.Errorf("%s: %d lines over the limit %d", d.ID, n, opt.MaxChunkLines)
				}
			}
		}

		fileToks := codetext.Tokens(lang, src)
		if st.ParseErrors > 0 {
			// Containment is promised for code that parses: an unterminated
			// literal at the end of a file lexes differently once the
			// chunk's trailing blanks are trimmed.
			return
		}
		for _, d := range out.Docs {
			if d.Kind == KindFile {
				continue
			}
			m := codetext.NewMatcher(lang, d.Text)
			if m.Len() > 0 && d.Kind != KindClass && d.Kind != KindModule && !m.MatchTokens(fileToks) {
				t.Errorf("chunk %s is not token-contained in its file:\n%s", d.ID, d.Text)
			}
		}
	})
}
