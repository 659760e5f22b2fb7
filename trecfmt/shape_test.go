package trecfmt

import (
	"math"
	"testing"
)

// FuzzLineShape holds lineShape.parse to fastRunLine: after the shape of
// one line fastRunLine accepts, any line parse accepts must give
// fastRunLine's fields and a bit-identical score, whatever lies in the
// line's capacity; parse may decline any line.
func FuzzLineShape(f *testing.F) {
	for _, s := range [][2]string{
		{"q1 Q0 doc1715779 1 0.999728 synth", "q1 Q0 doc1830016 2 0.999417 synth"},
		{"q1 Q0 doc1715779 1 0.999728 synth", "q10 Q0 doc1 22 -3.5 synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1 0.5 x synth"},
		{"q1 Q0 d 1 0.5 synth", "q1  Q0 d 1 0.5 synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1 0.5 synth "},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1 0.5. synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1 5. synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1 1234567890123456 synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d x 0.5 synth"},
		{"q1 Q0 d 1 0.5 synth", "# q1 Q0 d 1 0.5 synth"},
		{"q1 Q0 d 1 0.5 synth", "q1 Q0 d 1\t-.5 synth"},
		{"q1\tQ0\td\t1\t0.5\ta-long-run-tag\tx", "q2\tQ0\tdd\t3\t7\ta-long-run-tag\tx"},
		{"q1 a-long-iteration-field d 1 0.5 t", "q1 a-long-iteration-field e 1 0.5 t"},
		{"q1 Q0 d 1 0.5 t", "q1 Q0 d 1 0.5 t"},
		{"q1 Q0 d 1 0.5 t", "q1 Q0  1 0.5 t"},
		{"q1 Q0 d 1 0.5 t", "q1 Q0 d1 0.5 t"},
	} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, prev, line string, allowExtra bool) {
		pl, ok := fastRunLine([]byte(prev), allowExtra)
		if !ok {
			return
		}
		var sh lineShape
		sh.set([]byte(prev), pl)
		want, wantOK := fastRunLine([]byte(line), allowExtra)
		for _, tail := range []string{"", "\n", "abcdefghijklmnop", " synth"} {
			b := []byte(line + tail)[:len(line)]
			l, ok := sh.parse(b)
			if !ok {
				continue
			}
			if !wantOK {
				t.Fatalf("shape of %q: accepted %q (capacity %q), which fastRunLine declines", prev, line, tail)
			}
			if string(l.qid) != string(want.qid) || string(l.doc) != string(want.doc) || string(l.tag) != string(want.tag) ||
				math.Float64bits(l.score) != math.Float64bits(want.score) {
				t.Fatalf("shape of %q, line %q (capacity %q): %q %q %q %v, fastRunLine %q %q %q %v",
					prev, line, tail, l.qid, l.doc, l.tag, l.score, want.qid, want.doc, want.tag, want.score)
			}
		}
	})
}

// TestLineShapeTakesRunLines guards the speed path: consecutive lines of a
// run, of one query or not, must be read by the shape.
func TestLineShapeTakesRunLines(t *testing.T) {
	prev := []byte("q1 Q0 doc1715779 1 0.999728 synth")
	l, ok := fastRunLine(prev, false)
	if !ok {
		t.Fatal("fastRunLine declined a common line")
	}
	var sh lineShape
	sh.set(prev, l)
	for _, s := range []string{"q1 Q0 doc1830016 2 0.999417 synth", "q6017 Q0 doc2424277 32 0.977224 synth"} {
		if _, ok := sh.parse([]byte(s + "\n")[:len(s)]); !ok {
			t.Errorf("%q: declined", s)
		}
	}
}
