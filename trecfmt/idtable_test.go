package trecfmt

import (
	"fmt"
	"testing"
)

// TestIDTable checks the numbering against a map while the table grows.
func TestIDTable(t *testing.T) {
	var tab idTable
	want := map[string]int32{}
	for i := range 5000 {
		id := fmt.Sprintf("q%d", i*7919%10007)
		if got := tab.lookup([]byte(id)); got != -1 {
			t.Fatalf("%s: found %d before it was added", id, got)
		}
		if got := tab.add([]byte(id)); got != int32(i) {
			t.Fatalf("%s: added as %d, want %d", id, got, i)
		}
		want[id] = int32(i)
		if i%97 == 0 {
			for id, n := range want {
				if got := tab.lookup([]byte(id)); got != n {
					t.Fatalf("after %d ids: %s numbered %d, want %d", i+1, id, got, n)
				}
			}
		}
	}
	if got := tab.lookup([]byte("absent")); got != -1 {
		t.Errorf("absent id numbered %d", got)
	}
}
