package bench

import (
	"slices"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems/dense"
)

// TestSmallDenseModel: the other languages' family runs the default dense
// model at -size=small; the catalogue names it without importing dense (which
// would put ONNX Runtime into every user module's go.sum).
func TestSmallDenseModel(t *testing.T) {
	f := catalogue.RepoQALangs()
	if !slices.Contains(f.SmallSystems, "dense/"+dense.DefaultModel) {
		t.Errorf("RepoQALangs().SmallSystems = %q, want it to hold dense/%s (dense.DefaultModel)", f.SmallSystems, dense.DefaultModel)
	}
}
