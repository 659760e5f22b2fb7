package strhash

import (
	"fmt"
	"strings"
	"testing"
)

// TestStrHashSpreads checks that distinct ids of every length up to 40
// bytes, differing in any one position, get distinct hashes and spread
// over the low bits the tables index with.
func TestStrHashSpreads(t *testing.T) {
	seed := NewSeed()
	seen := map[uint64]string{}
	low := map[uint64]int{}
	n := 0
	for length := 0; length <= 40; length++ {
		for i := range 2000 {
			id := fmt.Sprintf("%d", i)
			if len(id) > length {
				continue
			}
			s := strings.Repeat("d", length-len(id)) + id
			for _, v := range []string{s, id + strings.Repeat("d", length-len(id))} {
				if _, dup := seen[String(v, seed)]; dup && seen[String(v, seed)] != v {
					t.Fatalf("%q and %q hash alike", v, seen[String(v, seed)])
				}
				if _, ok := seen[String(v, seed)]; !ok {
					seen[String(v, seed)] = v
					low[String(v, seed)&1023]++
					n++
				}
			}
		}
	}
	for b := range uint64(1024) {
		if c := low[b]; c > 4*n/1024 {
			t.Errorf("low bits %d: %d of %d ids (mean %d)", b, c, n, n/1024)
		}
	}
}
