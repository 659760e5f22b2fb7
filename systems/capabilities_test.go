package systems_test

import (
	"errors"
	"testing"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// TestAccessors: each capability's accessor asks a system that has it and
// gives the zero answer for one that has not, without calling anything.
func TestAccessors(t *testing.T) {
	plain := &systemstest.Script{}
	if systems.WholeFiles(plain) || systems.WarningsOf(plain) != nil || systems.IndexReportOf(plain) != (systems.IndexReport{}) ||
		systems.ModelsOf(plain) != nil || systems.VersionsOf(plain) != nil || systems.PeakRSSOf(plain) != 0 {
		t.Error("a plain system reports a capability it lacks")
	}
	if dim, ok, err := systems.VectorDimOf(t.Context(), plain); ok || dim != 0 || err != nil {
		t.Errorf("VectorDimOf(plain) = %d, %v, %v; want 0, false, nil", dim, ok, err)
	}
	if !systems.WholeFiles(&systemstest.Files{}) {
		t.Error("WholeFiles of a FileIndexer that says so = false")
	}
	if got := systems.PeakRSSOf(&systemstest.Factful{Peak: 42}); got != 42 {
		t.Errorf("PeakRSSOf = %d, want 42", got)
	}
	v := &systemstest.Vectors{Dim: 384}
	if dim, ok, err := systems.VectorDimOf(t.Context(), v); !ok || dim != 384 || err != nil || v.Probes != 1 {
		t.Errorf("VectorDimOf = %d, %v, %v after %d probes; want 384, true, nil after 1", dim, ok, err, v.Probes)
	}
	bad := &systemstest.Vectors{ProbeErr: errors.New("closed")}
	if _, ok, err := systems.VectorDimOf(t.Context(), bad); !ok || err == nil {
		t.Errorf("VectorDimOf of a failing probe = %v, %v; want true and its error", ok, err)
	}
}
