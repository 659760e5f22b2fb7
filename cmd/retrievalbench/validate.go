package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/retrievalbench/retrievalbench/datasets/cases"
)

// runValidate checks a case file (and, with -repos, its judgments against
// the repositories) and lists every problem, one per line as file:line.
func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "usage: retrievalbench validate -cases CASES [-repos MANIFEST]\n\n"+
		"Checks a case file (docs/cases.md) and lists every problem as file:line: problem, then exits 1;\n"+
		"a valid file prints one summary line and exits 0. Without -repos it checks what the file says\n"+
		"alone (JSON, fields, ids, intents, kinds, grades); with -repos also each case's repository and\n"+
		"every judgment against the repository's files (paths, symbols, doc sections), as campaign and\n"+
		"go test do before anything runs.\n\nflags:\n", stderr)
	casesFile := fs.String("cases", "", "case `file` (JSONL)")
	repos := fs.String("repos", "", "repository manifest `file`: check each judgment against the repositories too")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *casesFile == "" || fs.NArg() != 0 {
		return badUsage(fs, "validate: need -cases, and no arguments")
	}
	sum, err := cases.Validate(*casesFile, *repos)
	if err != nil {
		problems := unjoin(err)
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		if len(problems) == 1 {
			return fmt.Errorf("validate: %s: 1 problem", *casesFile)
		}
		return fmt.Errorf("validate: %s: %d problems", *casesFile, len(problems))
	}
	for _, n := range sum.Notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	against := "not checked against repositories (give -repos)"
	if sum.Checked {
		against = "every judgment found in its repository"
	}
	fmt.Fprintf(stdout, "%s: %d cases, %d judgments, %d repositories (%s): valid; %s\n",
		*casesFile, sum.Cases, sum.Judgments, len(sum.Repos), strings.Join(sum.Repos, ", "), against)
	return nil
}

// unjoin lists the errors errors.Join joined (err itself otherwise).
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
