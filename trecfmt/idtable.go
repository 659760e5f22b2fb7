package trecfmt

// idTable numbers ids 0, 1, 2, … in the order they are added: an
// open-addressing hash table looked up with the id's bytes (no string
// made). On a run whose lines are not grouped every line looks its query
// id up, so a slot is one word (a tag of the hash and the number) and the
// ids' bytes lie back to back: a lookup touches the slot and, when the tags
// agree, the id's bytes, not a string header and data somewhere in the heap.
type idTable struct {
	slots []uint64 // hash tag<<32 | number+1; 0 marks an empty slot
	arena []byte   // the ids back to back
	ends  []int    // ends[num]: end of id num in arena
}

// lookup returns b's number, or -1.
func (t *idTable) lookup(b []byte) int32 {
	if len(t.ends) == 0 {
		return -1
	}
	h := hashBytes(b)
	tag := h >> 32
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s>>32 == tag {
			num := int32(uint32(s)) - 1
			if string(t.id(num)) == string(b) {
				return num
			}
		}
	}
}

// id returns the bytes of id num.
func (t *idTable) id(num int32) []byte {
	start := 0
	if num > 0 {
		start = t.ends[num-1]
	}
	return t.arena[start:t.ends[num]]
}

// add numbers b, which must not be in t yet, and returns its number.
func (t *idTable) add(b []byte) int32 {
	num := int32(len(t.ends))
	if 2*(len(t.ends)+1) > len(t.slots) {
		size := max(64, 2*len(t.slots))
		t.slots = make([]uint64, size)
		for n := range num {
			t.put(hashBytes(t.id(n)), n)
		}
	}
	t.arena = append(t.arena, b...)
	t.ends = append(t.ends, len(t.arena))
	t.put(hashBytes(b), num)
	return num
}

func (t *idTable) put(h uint64, num int32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = h>>32<<32 | uint64(uint32(num+1))
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
