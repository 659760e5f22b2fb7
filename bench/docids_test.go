package bench

import (
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
		if !t.Run(fmt.Sprintf("update=%v", update), func(t *testing.T) { benchtest.Test(t, s, catalogue.TREC()) }) {
			t.Fatalf("the doc-id cell failed (update=%v)", update)
		}
	}
	files, _ := filepath.Glob(filepath.Join(golden, "*", "*", "fakepeer", "docids.json"))
	if len(files) != 1 {
		t.Fatalf("golden files %v, want the TREC fixture's one", files)
	}
	b, _ := os.ReadFile(files[0])
	t.Logf("%s:\n%s", files[0], b[:min(len(b), 1200)])
}
