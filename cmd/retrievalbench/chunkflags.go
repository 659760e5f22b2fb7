package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/chunk"
)

// chunkFlags registers on fs the flags that change how a campaign chunks a
// user's repository, each writing into opt (chunk.RepoOptions unless the
// caller set it otherwise): which files are left out and how large a chunk
// may be (docs/chunking.md). -exclude and -exclude-add apply in the order
// given; a repository's "exclude" in the manifest comes after both.
func chunkFlags(fs *flag.FlagSet, opt *chunk.Options) {
	patterns := func(s string) ([]string, error) {
		if s == "none" || s == "" {
			return nil, nil
		}
		ps := strings.Split(s, ",")
		for i := range ps {
			ps[i] = strings.TrimSpace(ps[i])
		}
		if err := (chunk.Exclude{Paths: ps}).Validate(); err != nil {
			return nil, err
		}
		return ps, nil
	}
	fs.Func("exclude", fmt.Sprintf("comma-separated path `patterns` of files not indexed, replacing the default list (none: no pattern); "+
		"\"dir/\" a directory anywhere, \"a/b\" or \"a/*.json\" from the root, \"*.min.js\" a base name, \"!p\" keeps what an earlier pattern left out (default %q)",
		strings.Join(opt.Exclude.Paths, ",")), func(s string) error {
		ps, err := patterns(s)
		opt.Exclude.Paths = ps
		return err
	})
	fs.Func("exclude-add", "comma-separated path `patterns` added after the list (-exclude or the default): \"docs/api/\" leaves more out, \"!testdata/\" indexes test data", func(s string) error {
		ps, err := patterns(s)
		opt.Exclude.Paths = append(opt.Exclude.Paths, ps...)
		return err
	})
	fs.BoolVar(&opt.Exclude.Generated, "exclude-generated", opt.Exclude.Generated, "leave out files whose header says they are generated (Go's \"// Code generated … DO NOT EDIT.\", \"@generated\")")
	fs.IntVar(&opt.Exclude.MaxFileBytes, "max-file-bytes", opt.Exclude.MaxFileBytes, "leave out files larger than `n` bytes (0: no limit)")
	fs.IntVar(&opt.MaxChunkLines, "max-chunk-lines", opt.MaxChunkLines, "cut chunks longer than `n` lines, doc comments and definitions too, at paragraph breaks where it can (0: no limit)")
	fs.IntVar(&opt.MaxChunkBytes, "max-chunk-bytes", opt.MaxChunkBytes, "cut chunks longer than `n` bytes (0: no limit)")
	fs.BoolVar(&opt.KeepFunctions, "keep-functions", opt.KeepFunctions, "let the chunk limits cut module, class and file chunks only, never a function")
}
