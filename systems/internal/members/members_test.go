package members

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// versioned is a Script that reports versions.
type versioned struct {
	systemstest.Script
	v map[string]string
}

func (v *versioned) Versions() map[string]string { return v.v }

// TestSet: location hits need the indexed corpus; Close closes every
// member, returns each one's error by index and keeps the largest peak;
// Versions merges the members' and is nil when none reports any.
func TestSet(t *testing.T) {
	s := New(nil)
	a := &systemstest.Factful{Script: systemstest.Script{Hits: []systems.Hit{{Path: "a.py", StartLine: 1, Score: 1}}}, Peak: 10, AtClose: 90}
	b := &versioned{v: map[string]string{"sqlite": "3.50"}}
	s.Add(a, "t: member a")
	s.Add(b, "t: member b")
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
	if _, ok := s.Resolve(0, a.Hits); ok {
		t.Error("location hits resolved before Index")
	}
	ids := []systems.Hit{{DocID: "x", Score: 1}}
	if got, ok := s.Resolve(1, ids); !ok || !cmp.Equal(got, ids) {
		t.Errorf("Resolve of doc-id hits = %v, %v; want them as they are", got, ok)
	}
	c := &corpus.Corpus{ID: "c", Docs: []corpus.Doc{{ID: "a.py#f@L1-L2", Path: "a.py", StartLine: 1, EndLine: 2, Text: "x"}}}
	if _, err := s.Index(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Resolve(0, a.Hits); !ok || len(got) != 1 || got[0].DocID != "a.py#f@L1-L2" {
		t.Errorf("Resolve after Index = %v, %v; want the chunk a.py#f@L1-L2", got, ok)
	}
	if diff := cmp.Diff(map[string]string{"sqlite": "3.50"}, s.Versions()); diff != "" {
		t.Errorf("Versions (-want +got):\n%s", diff)
	}
	if s.PeakRSS() != 10 {
		t.Errorf("PeakRSS = %d, want 10", s.PeakRSS())
	}
	boom := errors.New("boom")
	b.CloseErr = boom
	errs := s.Close()
	if len(errs) != 2 || errs[0] != nil || errs[1] != boom || !a.Closed || !b.Closed {
		t.Errorf("Close = %v (a closed %v, b closed %v); want [nil boom], both closed", errs, a.Closed, b.Closed)
	}
	if s.PeakRSS() != 100 || s.Len() != 0 {
		t.Errorf("after Close: PeakRSS = %d, Len = %d; want 100 (kept), 0", s.PeakRSS(), s.Len())
	}
	if v := New(nil).Versions(); v != nil {
		t.Errorf("Versions of no members = %v, want nil", v)
	}
}

// noticing is a Script that notices things, reuses an earlier index and
// has 8-dimensional vectors, as an external or dense member does.
type noticing struct {
	systemstest.Script
	warnings []string
}

func (n *noticing) Warnings() []string {
	w := n.warnings
	n.warnings = nil
	return w
}
func (n *noticing) IndexReport() systems.IndexReport {
	return systems.IndexReport{Reused: true, BuildTime: 5 * time.Second}
}
func (n *noticing) VectorDim(context.Context) (int, error) { return 8, nil }

// TestForward: a wrapper's Forward reports every member's warnings (who
// said it first), an index one member reused (with every member's build
// time), the first member's vector dimension; a Set of plain members
// reports none of them.
func TestForward(t *testing.T) {
	s := New(nil)
	s.Add(&systemstest.Script{}, "w: member plain")
	s.Add(&noticing{warnings: []string{"hit outside the corpus: x.py"}}, "w: member ext")
	f := s.Forward()
	c := &corpus.Corpus{ID: "c", Docs: []corpus.Doc{{ID: "a", Path: "a.py", Text: "x"}}}
	if _, err := s.Index(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"w: member ext: hit outside the corpus: x.py"}, f.Warnings()); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	if w := f.Warnings(); w != nil {
		t.Errorf("Warnings asked again = %v, want none (forgotten once told)", w)
	}
	if r := f.IndexReport(); !r.Reused || r.BuildTime < 5*time.Second {
		t.Errorf("IndexReport = %+v, want reused, built in at least the reusing member's 5s", r)
	}
	if dim, err := f.VectorDim(t.Context()); dim != 8 || err != nil {
		t.Errorf("VectorDim = %d, %v; want the member's 8", dim, err)
	}

	plain := New(nil)
	plain.Add(&systemstest.Script{}, "w: member plain")
	if _, err := plain.Index(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	pf := plain.Forward()
	if dim, ok, err := systems.VectorDimOf(t.Context(), struct {
		systems.System
		Forward
	}{&systemstest.Script{}, pf}); ok || dim != 0 || err != nil {
		t.Errorf("VectorDimOf a wrapper of plain members = %d, %v, %v; want nothing measured", dim, ok, err)
	}
	if r := pf.IndexReport(); r != (systems.IndexReport{}) {
		t.Errorf("IndexReport of plain members = %+v, want the zero report (built now)", r)
	}
	if w := pf.Warnings(); w != nil {
		t.Errorf("Warnings of plain members = %v, want none", w)
	}
}
