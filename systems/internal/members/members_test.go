package members

import (
	"errors"
	"testing"

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
