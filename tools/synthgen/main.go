// Command synthgen writes the synthetic qrels and run of internal/synth to
// a directory, for measuring "retrievalbench eval" outside go test:
//
//	go run ./tools/synthgen -out /tmp/synth
//	/usr/bin/time -v retrievalbench eval -m all_trec /tmp/synth/qrels.txt /tmp/synth/run.txt
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/retrievalbench/retrievalbench/internal/synth"
)

func main() {
	cfg := synth.DefaultConfig()
	out := flag.String("out", "", "output directory (required)")
	flag.IntVar(&cfg.Queries, "queries", cfg.Queries, "number of queries")
	flag.IntVar(&cfg.Retrieved, "retrieved", cfg.Retrieved, "results per query")
	flag.IntVar(&cfg.Judged, "judged", cfg.Judged, "judged documents per query")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "synthgen:", err)
		os.Exit(1)
	}
	q, r, err := synth.WriteFiles(*out, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthgen:", err)
		os.Exit(1)
	}
	fmt.Println(q)
	fmt.Println(r)
}
