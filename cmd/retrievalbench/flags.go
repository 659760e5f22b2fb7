package main

import (
	"errors"
	"flag"
)

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
