package chunk_test

import (
	"fmt"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
)

func ExampleSplit() {
	src := `import os


class Store:
    """Keeps files."""

    @staticmethod
    def path(name):
        return os.path.join("/tmp", name)
`
	c := &corpus.Corpus{ID: "demo", Docs: []corpus.Doc{
		{ID: "store.py", Path: "store.py", Kind: "file", Language: chunk.LanguageOf("store.py"), Text: src},
	}}
	out, st, err := chunk.Split(c, chunk.DefaultOptions())
	if err != nil {
		panic(err)
	}
	for _, d := range out.Docs {
		fmt.Printf("%-8s %-12s %s\n", d.Kind, d.Symbol, d.ID)
	}
	fmt.Printf("%+v\n", st)
	// Output:
	// module                store.py#<module>@L1-L1
	// class    Store        store.py#Store@L4-L9
	// method   Store.path   store.py#Store.path@L7-L9
	// {Files:1 Chunks:3 Fallback:0 ParseErrors:0}
}

func ExampleContains() {
	chunkText := `def area(r):
    # circle area
    return 3.14159 * r * r  # approximate
`
	needle := "def area(r):\n  return 3.14159*r*r"
	fmt.Println(chunk.Contains("python", chunkText, needle))
	fmt.Println(chunk.Contains("python", chunkText, "def area(r):\n  return 3.14*r*r"))
	fmt.Println(chunk.Tokens("go", `s := "a // b" // comment`))
	// Output:
	// true
	// false
	// [s : = "a // b"]
}
