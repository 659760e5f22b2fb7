package leaderboard

import "testing"

// TestCPUClassColumn: each row shows the CPU class its cell ran on
// (docs/portability.md), "—" without a cell file or a recorded class.
func TestCPUClassColumn(t *testing.T) {
	recs, cells := fixtureBoard()
	cells[1].CPUClass = "amd64-avx2"
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	d := b.Datasets[0]
	h := d.Header()
	if h[len(h)-1] != "CPU class" {
		t.Fatalf("header %q does not end with the CPU class", h)
	}
	want := map[string]string{"bm25/code": "—", "bm25/porter": "—", "dense/small": "amd64-avx2"}
	for i, r := range d.Rows {
		c := d.Cells(i)
		if len(c) != len(h) {
			t.Fatalf("%s: %d cells for %d columns", r.Model, len(c), len(h))
		}
		if got := c[len(c)-1]; got != want[r.Model] {
			t.Errorf("%s: CPU class %q, want %q", r.Model, got, want[r.Model])
		}
		if v := sortValues(d, r); len(v) != len(h) {
			t.Errorf("%s: %d sort values for %d columns", r.Model, len(v), len(h))
		}
	}
}
