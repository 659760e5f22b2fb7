package bench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
	"github.com/retrievalbench/retrievalbench/systems/external/externaltest"
)

// TestNoDocIDsSkips: an external system that returns locations only (the
// fakepeer command config: no result.doc_id, no corpus.jsonl) has no
// baseline on the TREC fixture, a collection judged by doc id; its cell
// skips by design (a cell that ran would fail on the missing golden file,
// and before Spec.NoDocIDs it failed at Index: "no path").
func TestNoDocIDsSkips(t *testing.T) {
	spec := externaltest.FakepeerSpec(t)
	if spec.NoDocIDs == "" {
		t.Fatal("the fakepeer command config reports no missing doc-id capability")
	}
	fl := benchtest.DefaultFlags()
	fl.Size = benchtest.SizeFixture
	s := benchtest.Suite{Systems: []systems.Spec{spec}, Golden: t.TempDir(), Flags: fl}
	if !t.Run("trec", func(t *testing.T) { benchtest.Test(t, s, catalogue.TREC()) }) {
		t.Errorf("the cell of a locations-only system on a doc-id collection failed; want a skip by design: %s", spec.NoDocIDs)
	}
}

// TestDocIDsCell: an external system that names its hits by doc id
// (corpus.jsonl + result.doc_id: fakepeer's word count over docs.jsonl)
// runs the TREC fixture end to end: -update writes its baseline, and the
// next run passes against it.
func TestDocIDsCell(t *testing.T) {
	externaltest.FakepeerSpec(t) // builds fakepeer, sets $FAKEPEER
	cfg, err := external.Parse("docids.json", []byte(`{
	"system": "fakepeer", "config": "docids", "transport": "command",
	"corpus": {"jsonl": true},
	"command": {"search": ["${FAKEPEER}", "searchjsonl", "-k", "{k}", "{corpus}/docs.jsonl", "{query}"]},
	"result": {"from": "json", "items": "results", "doc_id": "id", "score": "score"}}`))
	if err != nil {
		t.Fatal(err)
	}
	spec := external.Spec(cfg)
	golden := t.TempDir()
	for _, update := range []bool{true, false} {
		fl := benchtest.DefaultFlags()
		fl.Size, fl.Update = benchtest.SizeFixture, update
		s := benchtest.Suite{Systems: []systems.Spec{spec}, Golden: golden, Flags: fl}
		name := fmt.Sprintf("update=%v", update)
		ran := false
		if !t.Run(name, func(t *testing.T) { ran = true; benchtest.Test(t, s, catalogue.TREC()) }) {
			t.Fatalf("the doc-id cell failed (update=%v)", update)
		}
		// -run may leave out the subtests this test checks (go test ./bench
		// -run '/(pydocs-mcp|codira)/' selects no update=… subtest): then
		// there is nothing to check, which is not a failure.
		if !ran || !cellRan(golden) && update {
			t.Skipf("SKIP: -run %q deselected the subtest %s/%s (or its fakepeer/docids cell) that this test checks; run it with: go test ./bench -run '^TestDocIDsCell$'",
				runFlag(), t.Name(), name)
		}
	}
	files, _ := filepath.Glob(filepath.Join(golden, "*", "*", "fakepeer", "docids.json"))
	if len(files) != 1 {
		t.Fatalf("golden files %v, want the TREC fixture's one", files)
	}
	b, _ := os.ReadFile(files[0])
	t.Logf("%s:\n%s", files[0], b[:min(len(b), 1200)])
}

// cellRan reports whether a fakepeer/docids cell wrote a golden file under
// dir.
func cellRan(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "fakepeer", "docids.json"))
	return len(files) > 0
}

// runFlag is this binary's -test.run pattern.
func runFlag() string {
	if f := flag.Lookup("test.run"); f != nil {
		return f.Value.String()
	}
	return ""
}
