package trecfmt

import (
	"bytes"
	"math"
	"testing"
)

// FuzzFastRunLine checks the one-pass line parser against the general path
// (splitFields, then parseRunFields): a line it accepts must give the same
// fields and a bit-identical score; any line may be declined.
func FuzzFastRunLine(f *testing.F) {
	for _, s := range []string{
		"q1 Q0 d1 1 0.999728 tag",
		"q1\tQ0\td1\t1\t-12.5\ttag\r",
		"  q1  Q0 d1 7 3 tag  ",
		"q1 Q0 d1 1 0.5 tag extra",
		"q1 Q0 d1 01 123456789012345 t",
		"q1 Q0 d1 1 1234567890123456 t", // 16 digits: declined
		"q1 Q0 d1 1 5. t",
		"q1 Q0 d1 1 .5 t",
		"q1 Q0 d1 1 -0 t",
		"q1 Q0 d1 -1 0.1 t",
		"q1 Q0 d1 1 1e5 t",
		"q1 Q0 d1 1 +1 t",
		"q1 Q0 d1 1 1.2.3 t",
		"q1 Q0 d1 x 1 t",
		"# q1 Q0 d1 1 1 t",
		"q1 Q0 d1 1 0.5",
		"q1 Q0 d1\x01 1 0.5 t\v",
		// Fields of eight bytes and more, with bytes below '!' that are
		// not white space and bytes above 0x7f, for fieldEnd's word test.
		"query0001\tQ0\tdocument\x01\x1f\x7f\x80\xffend 12 0.25 runtag-long\f",
		"q\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0 Q0 d\x00\x00\x00\x00\x00\x00\x00\x00 1 1 t\x1e\x1e\x1e\x1e\x1e\x1e\x1e\x1e",
		"q1 Q0 doc1715779\r1 0.999728 synth\r",
		"",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, allowExtra bool) {
		b := []byte(line)
		l, ok := fastRunLine(b, allowExtra)
		// fieldEnd reads words past the line into its capacity: what
		// lies there must not change the outcome.
		for _, tail := range []string{"\n", "abcdefghijklmnop", "\x01\x01\x01\x01\x01\x01\x01\x01 "} {
			t2 := []byte(line + tail)[:len(line)]
			l2, ok2 := fastRunLine(t2, allowExtra)
			if ok2 != ok || string(l2.qid) != string(l.qid) || string(l2.doc) != string(l.doc) || string(l2.tag) != string(l.tag) ||
				math.Float64bits(l2.score) != math.Float64bits(l.score) {
				t.Fatalf("%q followed by %q in its capacity: %v %q %q %q %v, without: %v %q %q %q %v",
					line, tail, ok2, l2.qid, l2.doc, l2.tag, l2.score, ok, l.qid, l.doc, l.tag, l.score)
			}
		}
		if !ok {
			return
		}
		fs := splitFields(nil, b)
		if len(fs) == 0 || fs[0][0] == '#' {
			t.Fatalf("%q: accepted a line the general path skips", line)
		}
		score, err := parseRunFields("f", 1, fs, allowExtra)
		if err != nil {
			t.Fatalf("%q: accepted a line the general path rejects: %v", line, err)
		}
		if string(l.qid) != string(fs[0]) || string(l.doc) != string(fs[2]) || string(l.tag) != string(fs[5]) {
			t.Errorf("%q: fields %q %q %q, general path %q %q %q", line, l.qid, l.doc, l.tag, fs[0], fs[2], fs[5])
		}
		if math.Float64bits(l.score) != math.Float64bits(score) {
			t.Errorf("%q: score %v (%#x), general path %v (%#x)", line, l.score, math.Float64bits(l.score), score, math.Float64bits(score))
		}
	})
}

// TestFastRunLineTakesCommonLines guards the speed path: the lines search
// systems write must not all fall back to the general path.
func TestFastRunLineTakesCommonLines(t *testing.T) {
	for _, s := range []string{"q1 Q0 doc1715779 1 0.999728 synth", "301\tQ0\tFBIS3-1\t12\t-3.25\trun"} {
		if _, ok := fastRunLine([]byte(s), false); !ok {
			t.Errorf("%q: declined", s)
		}
	}
}

// TestCopyID holds copyID to copy for every length up to 40 and shorter
// destinations: the same count and bytes, nothing written past them.
func TestCopyID(t *testing.T) {
	src := []byte("0123456789abcdefghijklmnopqrstuvwxyzABCD")
	for n := range len(src) + 1 {
		for room := max(0, n-2); room <= n+9; room++ {
			got, want := bytes.Repeat([]byte{'.'}, room), bytes.Repeat([]byte{'.'}, room)
			if g, w := copyID(got, src[:n]), copy(want, src[:n]); g != w || !bytes.Equal(got, want) {
				t.Fatalf("%d bytes into %d: copyID %d %q, copy %d %q", n, room, g, got, w, want)
			}
		}
	}
}
