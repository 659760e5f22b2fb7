package trecfmt

import (
	"fmt"
	"strings"
	"testing"
)

// TestIDTable checks the numbering against a map while the table grows,
// with ids of every length around the 7 bytes a slot key holds, ids that
// differ only by a trailing NUL byte or past their seventh byte, and ids
// looked up from slices with other bytes in their capacity.
func TestIDTable(t *testing.T) {
	var tab idTable
	want := map[string]int32{}
	id := func(i int) string {
		base := fmt.Sprintf("q%d", i/4*7919%10007)
		switch i % 4 {
		case 1:
			return base + "\x00"
		case 2:
			return "query-number-" + base // long, same first 7 bytes
		case 3:
			return strings.Repeat("x", i%12) + base
		}
		return base
	}
	lookup := func(s string) int32 { return tab.lookup([]byte(s + "tail-in-cap\x00\x00")[:len(s)]) }
	for i := range 5000 {
		s := id(i)
		if _, dup := want[s]; dup {
			continue
		}
		if got := lookup(s); got != -1 {
			t.Fatalf("%q: found %d before it was added", s, got)
		}
		n := int32(len(want))
		if got := tab.add([]byte(s)); got != n {
			t.Fatalf("%q: added as %d, want %d", s, got, n)
		}
		want[s] = n
		if i%97 == 0 {
			for s, n := range want {
				if got := lookup(s); got != n {
					t.Fatalf("after %d ids: %q numbered %d, want %d", len(want), s, got, n)
				}
			}
		}
	}
	for _, s := range []string{"absent", "q", "", "query-number-q0x", "q1\x00\x00"} {
		if got := lookup(s); got != -1 {
			t.Errorf("absent id %q numbered %d", s, got)
		}
	}
}
