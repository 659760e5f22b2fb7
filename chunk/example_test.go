package chunk_test

import (
	"fmt"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

func ExampleCorpus() {
	src := `import os


class Store:
    """Keeps files."""

    @staticmethod
    def path(name):
        return os.path.join("/tmp", name)
`
	c := &corpus.Corpus{ID: "demo", Docs: []corpus.Doc{
		{ID: "store.py", Path: "store.py", Kind: "file", Language: codetext.LanguageOf("store.py"), Text: src},
	}}
	out, st, err := chunk.Corpus(c, chunk.DefaultOptions())
	if err != nil {
		panic(err)
	}
	for _, d := range out.Docs {
		fmt.Printf("%-8s %-12s %s\n", d.Kind, d.Symbol, d.ID)
	}
	fmt.Println(st)
	// Output:
	// module                store.py#<module>@L1-L1
	// class    Store        store.py#Store@L4-L9
	// method   Store.path   store.py#Store.path@L7-L9
	// 1 files → 3 chunks (largest 3 lines, 79 B)
}
