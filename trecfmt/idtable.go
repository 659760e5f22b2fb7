package trecfmt

// idTable numbers ids: an open-addressing hash table from id to its
// number, looked up with the id's bytes (no string made). On a run whose
// lines are not grouped every line looks its query id up.
type idTable struct {
	ids  []string
	nums []int32 // number + 1; 0 marks an empty slot
	n    int
}

// lookup returns b's number, or -1.
func (t *idTable) lookup(b []byte) int32 {
	if t.n == 0 {
		return -1
	}
	mask := uint64(len(t.nums) - 1)
	for h := hashBytes(b) & mask; t.nums[h] != 0; h = (h + 1) & mask {
		if t.ids[h] == string(b) {
			return t.nums[h] - 1
		}
	}
	return -1
}

// add numbers id (which must not be in t yet) with num.
func (t *idTable) add(id string, num int32) {
	if 2*(t.n+1) > len(t.nums) {
		old, oldNums := t.ids, t.nums
		size := max(64, 2*len(t.nums))
		t.ids, t.nums = make([]string, size), make([]int32, size)
		for i, v := range oldNums {
			if v != 0 {
				t.put(old[i], v)
			}
		}
	}
	t.put(id, num+1)
	t.n++
}

func (t *idTable) put(id string, v int32) {
	mask := uint64(len(t.nums) - 1)
	h := hashBytes([]byte(id)) & mask
	for t.nums[h] != 0 {
		h = (h + 1) & mask
	}
	t.ids[h], t.nums[h] = id, v
}

// hashBytes is FNV-1a, folded so that the low bits depend on every byte.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h ^ h>>29
}
