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

func TestUnknownFlagIsUsageError(t *testing.T) {
	tests := []struct {
		args   []string
		want   string
		reason string
	}{
		{[]string{"campaign", "-nope"}, "campaign: flag provided but not defined: -nope", "campaign"},
		{[]string{"data", "fetch", "-nope"}, "data fetch: flag provided but not defined: -nope", "data fetch used to exit 1"},
		{[]string{"data", "ls", "-nope"}, "data ls: flag provided but not defined: -nope", "data ls used to exit 1"},
		{[]string{"embed", "-nope"}, "embed: flag provided but not defined: -nope", "embed used to exit 1"},
		{[]string{"eval", "-nope"}, "eval: flag provided but not defined: -nope", "eval"},
		{[]string{"gate", "-nope"}, "gate: flag provided but not defined: -nope", "gate"},
		{[]string{"models", "list", "-nope"}, "models list: flag provided but not defined: -nope", "models list used to exit 1"},
		{[]string{"models", "fetch", "-nope"}, "models fetch: flag provided but not defined: -nope", "models fetch used to exit 1"},
		{[]string{"report", "-nope"}, "report: flag provided but not defined: -nope", "report"},
		{[]string{"score", "-nope"}, "score: flag provided but not defined: -nope", "score"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:len(tt.args)-1], "_"), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tt.args, &stdout, &stderr)
			if err == nil || exitCode(err) != 2 || err.Error() != tt.want {
				t.Errorf("%s: err %v (exit %d), want usage error %q", tt.reason, err, exitCode(err), tt.want)
			}
		})
	}
}
