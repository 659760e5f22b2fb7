package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestLeakageCases(t *testing.T) {
	var out, errb bytes.Buffer
	err := run([]string{"leakage", "-json", "-cases", "../../fixtures/cases/cases.jsonl", "-manifest", "../../fixtures/cases/manifest.json"}, &out, &errb)
	if err != nil {
		t.Fatalf("leakage: %v\n%s", err, errb.String())
	}
	var r struct {
		Dataset string
		Tasks   int
		Docs    int
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.Dataset != "cases-cases" || r.Tasks != 10 || r.Docs == 0 {
		t.Errorf("report %+v, want dataset cases-cases with the fixture's 10 tasks and its docs", r)
	}
}

func TestLeakageUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"leakage"}, "name a dataset or give -cases"},
		{[]string{"leakage", "nosuch"}, `unknown dataset "nosuch"`},
		{[]string{"leakage", "-cases", "x.jsonl"}, "-cases and -manifest go together"},
	} {
		var out, errb bytes.Buffer
		err := run(tc.args, &out, &errb)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (exit %d), want usage error %q", tc.args, err, exitCode(err), tc.want)
		}
	}
}

// TestLeakageCatalogue: a dataset named from the catalogue is the one its
// files give: cases/fixture is the fixture's case file and manifest, read
// through -cases.
func TestLeakageCatalogue(t *testing.T) {
	var byName, byFile, errb bytes.Buffer
	if err := run([]string{"leakage", "-json", "cases/fixture"}, &byName, &errb); err != nil {
		t.Fatalf("leakage cases/fixture: %v\n%s", err, errb.String())
	}
	if err := run([]string{"leakage", "-json", "-cases", "../../fixtures/cases/cases.jsonl", "-manifest", "../../fixtures/cases/manifest.json"}, &byFile, &errb); err != nil {
		t.Fatalf("leakage -cases: %v\n%s", err, errb.String())
	}
	if byName.String() != byFile.String() {
		t.Errorf("leakage cases/fixture:\n%s\nwant what -cases gives for its files:\n%s", byName.String(), byFile.String())
	}
	var r struct{ Tasks int }
	if err := json.Unmarshal(byName.Bytes(), &r); err != nil || r.Tasks != 10 {
		t.Errorf("report %q (%v), want the fixture's 10 tasks", byName.String(), err)
	}
}
