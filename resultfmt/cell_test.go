package resultfmt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCellRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cells := []Cell{
		{Dataset: "b", Split: "all", System: "dense", Config: "m", IndexSeconds: 2.5, IndexedDocs: 7, PeakRSSMB: 120, Versions: map[string]string{"go": "go1"}},
		{Dataset: "a", Split: "small", System: "bm25", Config: "code", ConfigHash: "h", DataHash: "d"},
	}
	for _, c := range cells {
		if err := WriteCell(filepath.Join(dir, CellFileName(c.Dataset, c.Split, c.System, c.Config)), c); err != nil {
			t.Fatal(err)
		}
	}
	// A records file next to them is not a cell.
	if err := WriteRecords(filepath.Join(dir, RecordsFileName("a", "small", "bm25", "code")), []Record{{System: "bm25", Task: "t"}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCells(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Cell{cells[1], cells[0]}, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	recs, err := ReadRecords(dir)
	if err != nil || len(recs) != 1 {
		t.Errorf("ReadRecords next to cell files: %d records, %v; want the 1 record", len(recs), err)
	}
}

func TestReadCellsBadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.all.bm25.code.cell.json")
	if err := os.WriteFile(bad, []byte(`{"dataset":"x","system":"bm25","config":"code","index_secs":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCells(dir); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("unknown field: err = %v, want one naming %s", err, bad)
	}
}
