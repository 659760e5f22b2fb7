package bm25_test

import (
	"context"
	"fmt"
	"log"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
)

func Example() {
	cfg, err := bm25.ConfigByName("code-weighted")
	if err != nil {
		log.Fatal(err)
	}
	// An empty CacheDir keeps the index in a temporary directory until Close.
	x, err := bm25.New(cfg, systems.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	c := &corpus.Corpus{ID: "demo", Docs: []corpus.Doc{
		{ID: "net.py#parseHTTPResponse", Path: "net.py", Symbol: "parseHTTPResponse", Text: "def parseHTTPResponse(raw): ..."},
		{ID: "web.py#render_template", Path: "web.py", Symbol: "render_template", Text: "def render_template(name): ..."},
	}}
	if err := x.Index(context.Background(), c); err != nil {
		log.Fatal(err)
	}
	// FTS5 syntax in the query is searched as words: no error, no column filter.
	hits, err := x.Search(context.Background(), `http "response" AND symbol:parse*`, 10)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.DocID)
	}
	// Output:
	// net.py#parseHTTPResponse
}
