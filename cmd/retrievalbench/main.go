// Command retrievalbench does what does not fit in go test: trec_eval-style
// evaluation, the benchmark regression gate, model and data management,
// embedding, campaigns and reports. Run "retrievalbench help" for the list.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "retrievalbench:", err)
		os.Exit(exitCode(err))
	}
}
