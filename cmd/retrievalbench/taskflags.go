package main

import (
	"flag"
	"fmt"
	"time"
)

// taskTimeoutFlag registers -task-timeout on fs: the most one search may
// take before its task fails (harness.RunConfig.TaskTimeout), into *d,
// which holds the default. An external system whose config allows a
// search longer (its "timeout", plus "start_timeout" for a server) is
// given its own bound instead.
func taskTimeoutFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.Func("task-timeout", fmt.Sprintf("most one search may take before its task fails (`duration`, default %v); an external system config's \"timeout\" above it applies to that system", *d), func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		if v <= 0 {
			return fmt.Errorf("%v: must be positive", v)
		}
		*d = v
		return nil
	})
}
