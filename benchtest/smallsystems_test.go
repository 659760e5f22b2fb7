package benchtest

import (
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
)

func TestSmallSystems(t *testing.T) {
	f := catalogue.Family{Name: "langs", SmallSystems: []string{"bm25/*", "dense/minilm-l6-q"}}
	d := catalogue.Dataset{Name: "go-doc"}
	tests := []struct {
		spec     systems.Spec
		size     string
		hermetic bool
		skip     bool
		reason   string
	}{
		{systems.Spec{System: "bm25", Config: "porter"}, SizeSmall, false, false, "a pattern admits every bm25 config"},
		{systems.Spec{System: "dense", Config: "minilm-l6-q"}, SizeSmall, false, false, "the default dense model runs at small"},
		{systems.Spec{System: "dense", Config: "bge-small-q"}, SizeSmall, false, true, "another model waits for -size=full"},
		{systems.Spec{System: "dense", Config: "bge-small-q"}, SizeFull, false, false, "full size runs everything"},
		{systems.Spec{System: "hybrid", Config: "rrf"}, SizeSmall, true, false, "hermetic fixtures run at every size"},
	}
	for _, tc := range tests {
		dd := d
		dd.Hermetic = tc.hermetic
		why := byDesign(tc.spec, &Flags{Size: tc.size}, f, dd, "go test -run X")
		if (why != "") != tc.skip {
			t.Errorf("%s: byDesign = %q, want skip=%v", tc.reason, why, tc.skip)
		}
		if tc.skip && !strings.Contains(why, "go test -run X -size=full") {
			t.Errorf("%s: the reason %q does not name the full-size command", tc.reason, why)
		}
	}
	if !(catalogue.Family{}).SmallRuns("anything/x") {
		t.Error("a family without SmallSystems runs every config at small")
	}
}
