package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
		reason   string
	}{
		{"no command", nil, 2, "usage: retrievalbench", "", "bare invocation lists the commands and is a usage error"},
		{"help", []string{"help"}, 0, "commands:", "", "help lists the commands"},
		{"unknown", []string{"frobnicate"}, 2, "", "usage: retrievalbench", "unknown commands are usage errors"},
		{"subcommand -h", []string{"eval", "-h"}, 0, "", "usage: retrievalbench eval", "-h prints usage and exits 0, as Go's flag package does"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tt.args, &stdout, &stderr)
			code := 0
			if err != nil {
				code = exitCode(err)
			}
			if code != tt.code {
				t.Errorf("exit %d (err %v), want %d: %s", code, err, tt.code, tt.reason)
			}
			if !strings.Contains(stdout.String(), tt.inStdout) || !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stdout %q / stderr %q, want %q / %q: %s", stdout.String(), stderr.String(), tt.inStdout, tt.inStderr, tt.reason)
			}
		})
	}
}
