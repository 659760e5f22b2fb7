package matrix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func TestKeyRoundTrip(t *testing.T) {
	for _, k := range []Key{
		{"repoqa", "bm25", "porter", "python-docstring"},
		{CampaignFamily, "dense", "bge-small-q", "org/repo"}, // a campaign's repository may hold "/"
	} {
		got, err := ParseKey(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKey(%q) = %+v, %v; want %+v", k.String(), got, err, k)
		}
	}
	for _, bad := range []string{"", "a/b/c", "a//c/d", "bm25 on minikv"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
	if k := SpecKey(CampaignFamily, "bm25/code-weighted", "minikv"); k.String() != "campaign/bm25/code-weighted/minikv" {
		t.Errorf("SpecKey = %s", k)
	}
}

// TestReadCosts: go test's cell files and a campaign's part.json are read
// the same way into one Costs; a directory that is missing, or holds
// neither, is an error naming it; costs that record none of a run's cells
// say so, naming the directory.
func TestReadCosts(t *testing.T) {
	cells := t.TempDir()
	c := resultfmt.Cell{Dataset: "repoqa-fixture", Split: "all", System: "bm25", Config: "porter", Cell: "repoqa/bm25/porter/fixture", Seconds: 2.5}
	if err := resultfmt.WriteCell(filepath.Join(cells, resultfmt.CellFileName(c.Dataset, c.Split, c.System, c.Config)), c); err != nil {
		t.Fatal(err)
	}
	part := t.TempDir()
	if err := os.WriteFile(filepath.Join(part, PartFile), []byte(`{"shard": "1/1", "cells": [{"system": "bm25/code-weighted", "repo": "minikv", "seconds": 4, "ran": true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCosts(cells, part)
	if err != nil {
		t.Fatal(err)
	}
	bench, camp := Key{"repoqa", "bm25", "porter", "fixture"}, Key{CampaignFamily, "bm25", "code-weighted", "minikv"}
	if got.Seconds[bench] != 2.5 || got.Seconds[camp] != 4 || len(got.Seconds) != 2 {
		t.Errorf("costs = %v; want %s 2.5 and %s 4", got.Seconds, bench, camp)
	}
	if err := got.NoneMatch([]Key{bench, {"trec", "bm25", "porter", "fixture"}}); err != nil {
		t.Errorf("NoneMatch of costs that record one of the cells: %v", err)
	}
	err = got.NoneMatch([]Key{{"trec", "bm25", "porter", "fixture"}})
	if err == nil || !strings.Contains(err.Error(), cells) || !strings.Contains(err.Error(), "none of this run's 1") {
		t.Errorf("NoneMatch of costs that record none of the cells = %v; want an error naming %s", err, cells)
	}
	if err := (Costs{}).NoneMatch([]Key{bench}); err != nil {
		t.Errorf("NoneMatch without -shard-costs = %v, want nil (round-robin is what was asked)", err)
	}

	missing := filepath.Join(t.TempDir(), "wohle") // mistyped
	empty := t.TempDir()
	for dir, want := range map[string]string{missing: "no such directory", empty: "no cell files"} {
		_, err := ReadCosts(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadCosts(%s) = %v; want an error naming it: %s", dir, err, want)
		}
	}
	if c, err := ReadCosts(""); err != nil || len(c.Dirs) != 0 {
		t.Errorf(`ReadCosts("") = %+v, %v; want no costs, no error`, c, err)
	}
}
