package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlagSet is the flag set of subcommand name: it does not exit on an
// error (run maps errors to exit codes), writes its errors to stderr, and
// its usage is usage (ending "flags:\n") followed by the flags' defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with fs (made with flag.ContinueOnError). -h and
// -help return flag.ErrHelp, which run turns into exit 0 once the flag set
// has printed its usage; any other flag error is bad usage (exit 2), named
// after the flag set ("gate: flag provided but not defined: -x").
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%s: %v", fs.Name(), err)
}

// badUsage prints fs's usage and returns bad usage (exit 2) with the
// message format makes of args.
func badUsage(fs *flag.FlagSet, format string, args ...any) error {
	fs.Usage()
	return usagef(format, args...)
}
