package harness

import (
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/stretchr/testify/require"
)

// onClass runs q1..q3 against answers as if on CPU class class.
func onClass(t *testing.T, class string, answers map[string][]systems.Hit) (*Result, *goldenfmt.Golden) {
	t.Helper()
	res, _ := runFixed(t, answers)
	res.CPUClass = class
	return res, NewGolden(res, 0.035, "model-based")
}

// TestGoldenCPUClasses is docs/portability.md's rule: a run is checked
// against its own CPU class's baseline when the golden file has one, so a
// one-task drop fails on either class, while the known difference between
// the classes (here q2's gold swapped with a near-tied doc on AVX2) passes.
func TestGoldenCPUClasses(t *testing.T) {
	vnni := map[string][]systems.Hit{"q1": hits("a"), "q2": hits("b", "a"), "q3": hits("c")}
	avx2 := map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")}
	plantedVNNI := map[string][]systems.Hit{"q1": hits(), "q2": hits("b", "a"), "q3": hits("c")}
	plantedAVX2 := map[string][]systems.Hit{"q1": hits(), "q2": hits("a", "b"), "q3": hits("c")}
	_, main := onClass(t, cpuclass.AVX512VNNI, vnni)

	t.Run("other class without its baseline: a near-tie move is excused and shown", func(t *testing.T) {
		res, _ := onClass(t, cpuclass.AVX2, avx2)
		v := CheckGolden(main, res, 0.035)
		if !v.OK() || len(v.Excused) == 0 || !strings.Contains(v.Excused[0], "t2 rank 1 → rank 2") {
			t.Errorf("verdict %+v, want a pass that names t2's move as excused", v)
		}
	})
	t.Run("other class without its baseline: a move beyond NearRanks fails, and names both classes", func(t *testing.T) {
		res, _ := onClass(t, cpuclass.AVX2, avx2)
		for i := range res.Tasks {
			if res.Tasks[i].ID == "t2" {
				res.Tasks[i].FirstRelevant = 1 + NearRanks + 1 // as if the gold had moved to rank 7
			}
		}
		v := CheckGolden(main, res, 0.035)
		require.False(t, v.OK())
		if !strings.Contains(v.Failures[0], "CPU class amd64-avx2, golden's amd64-avx512-vnni") {
			t.Errorf("failure %q does not say that the CPU classes differ", v.Failures[0])
		}
		if !strings.Contains(v.CPU, "has no amd64-avx2 baseline") || !strings.Contains(v.CPU, "-update") {
			t.Errorf("CPU note = %q, want the missing class and how to record it", v.CPU)
		}
	})

	res, now := onClass(t, cpuclass.AVX2, avx2)
	both := goldenfmt.Merge(main, now)
	t.Run("update on another class adds its baseline, keeps the main one", func(t *testing.T) {
		require.Equal(t, cpuclass.AVX512VNNI, both.CPUClass)
		require.Equal(t, main.Metrics, both.Metrics)
		require.Contains(t, both.ByCPUClass, cpuclass.AVX2)
		require.Empty(t, main.ByCPUClass, "Merge must not edit the file it read")
		if v := CheckGolden(both, res, 0.035); !v.OK() || v.CPU != "" {
			t.Errorf("AVX2 run against its own baseline: %+v, want a clean pass", v)
		}
		r, _ := onClass(t, cpuclass.AVX512VNNI, vnni)
		if v := CheckGolden(both, r, 0.035); !v.OK() {
			t.Errorf("VNNI run against the main baseline: %q, want a pass", v.Failures)
		}
	})
	t.Run("a planted one-task drop fails on both classes", func(t *testing.T) {
		for _, c := range []struct {
			class   string
			answers map[string][]systems.Hit
			against string
		}{{cpuclass.AVX512VNNI, plantedVNNI, ""}, {cpuclass.AVX2, plantedAVX2, "against the golden's amd64-avx2 baseline"}} {
			r, _ := onClass(t, c.class, c.answers)
			v := CheckGolden(both, r, 0.035)
			joined := strings.Join(v.Failures, "\n")
			if v.OK() || !strings.Contains(joined, "t1 lost rank 1") || !strings.Contains(joined, c.against) {
				t.Errorf("%s: failures %q, want t1's loss%s", c.class, v.Failures, c.against)
			}
		}
	})
	t.Run("a planted one-task drop fails on a class without its baseline too", func(t *testing.T) {
		r, _ := onClass(t, "arm64", plantedAVX2)
		v := CheckGolden(both, r, 0.035)
		if v.OK() || !strings.Contains(strings.Join(v.Failures, "\n"), "t1 lost rank 1") {
			t.Errorf("failures %q, want t1's loss to fail even with t2's near move excused", v.Failures)
		}
	})
	t.Run("a class that agrees with the main baseline gets no entry", func(t *testing.T) {
		_, same := onClass(t, cpuclass.AVX2, vnni)
		if m := goldenfmt.Merge(main, same); len(m.ByCPUClass) != 0 {
			t.Errorf("by_cpu_class = %v, want none for results equal to the main baseline", m.ByCPUClass)
		}
		_, sameAgain := onClass(t, cpuclass.AVX2, vnni)
		if m := goldenfmt.Merge(both, sameAgain); len(m.ByCPUClass) != 0 {
			t.Errorf("by_cpu_class = %v, want the AVX2 entry removed once AVX2 agrees with the main baseline", m.ByCPUClass)
		}
	})
	t.Run("an unknown class is checked against the main baseline", func(t *testing.T) {
		r, _ := onClass(t, "arm64", vnni)
		if v := CheckGolden(both, r, 0.035); !v.OK() {
			t.Errorf("failures %q, want a pass against the main baseline", v.Failures)
		}
	})
	t.Run("a file without a class stands for every class", func(t *testing.T) {
		old := *main
		old.CPUClass = ""
		if v := CheckGolden(&old, res, 0.035); v.CPU != "" {
			t.Errorf("CPU note %q for a golden file that records no class", v.CPU)
		}
	})
	t.Run("update of the main class keeps the other classes while versions agree", func(t *testing.T) {
		_, again := onClass(t, cpuclass.AVX512VNNI, vnni)
		if m := goldenfmt.Merge(both, again); m.ByCPUClass[cpuclass.AVX2] == nil {
			t.Error("the AVX2 baseline was dropped by an update that changed nothing it depends on")
		}
		_, newModel := onClass(t, cpuclass.AVX512VNNI, vnni)
		newModel.Versions["model m model.onnx"] = "new"
		if m := goldenfmt.Merge(both, newModel); len(m.ByCPUClass) != 0 {
			t.Errorf("by_cpu_class = %v after a new model file, want the stale AVX2 baseline dropped", m.ByCPUClass)
		}
		_, otherData := onClass(t, cpuclass.AVX2, avx2)
		otherData.DataHash = "new-data"
		if m := goldenfmt.Merge(both, otherData); m != otherData {
			t.Error("an update on other data must replace the whole file")
		}
	})
	t.Run("round trip", func(t *testing.T) {
		path := t.TempDir() + "/g.json"
		require.NoError(t, goldenfmt.Write(path, both))
		back, err := goldenfmt.Read(path)
		require.NoError(t, err)
		b1, _ := both.Marshal()
		b2, _ := back.Marshal()
		require.Equal(t, string(b1), string(b2))
		require.Contains(t, string(b1), `"cpu_class": "amd64-avx512-vnni"`)
	})
}
