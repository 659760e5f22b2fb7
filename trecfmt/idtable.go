package trecfmt

import (
	"encoding/binary"
	"math/bits"
)

// idTable numbers ids 0, 1, 2, … in the order they are added: an
// open-addressing hash table looked up with the id's bytes (no string
// made). On a run whose lines are not grouped every line looks its query
// id up, so a lookup touches one slot and mostly nothing else: the slot
// holds the id's key (an id of up to 7 bytes whole, with its length; of a
// longer one the first 7 bytes and a mark), and only a long id's bytes are
// compared in the arena, where the ids lie back to back.
type idTable struct {
	slots []idSlot
	arena []byte // the ids back to back
	ends  []int  // ends[num]: end of id num in arena
}

type idSlot struct {
	key uint64
	num int32 // number + 1; 0 marks an empty slot
}

// longKey marks the key of an id longer than 7 bytes (its length byte).
const longKey = 0xff << 56

// idKey returns b's key: b's bytes (the first 7 of a longer id) and its
// length, or longKey, in the top byte. It reads a word from b's capacity
// when there is one.
func idKey(b []byte) uint64 {
	n := len(b)
	var x uint64
	if w := b[:cap(b)]; len(w) >= 8 {
		x = binary.LittleEndian.Uint64(w)
	} else {
		for i := len(w) - 1; i >= 0; i-- {
			x = x<<8 | uint64(w[i])
		}
	}
	if n > 7 {
		return x&(1<<56-1) | longKey
	}
	return x&(1<<(8*n)-1) | uint64(n)<<56
}

// idHash hashes an id with its key: the key alone (mixed) when it holds
// the whole id, else FNV-1a of every byte.
func idHash(b []byte, key uint64) uint64 {
	if key&longKey != longKey {
		h := key * 0x9e3779b97f4a7c15
		return h ^ h>>29 ^ bits.RotateLeft64(h, 17)
	}
	return hashBytes(b)
}

// lookup returns b's number, or -1.
func (t *idTable) lookup(b []byte) int32 {
	if len(t.ends) == 0 {
		return -1
	}
	key := idKey(b)
	mask := uint64(len(t.slots) - 1)
	for i := idHash(b, key) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.num == 0 {
			return -1
		}
		if s.key == key && (key&longKey != longKey || string(t.id(s.num-1)) == string(b)) {
			return s.num - 1
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
	if 4*(len(t.ends)+1) > 3*len(t.slots) { // at most three quarters full
		size := max(64, 2*len(t.slots))
		t.slots = make([]idSlot, size)
		for n := range num {
			t.put(t.id(n), n)
		}
	}
	t.arena = append(t.arena, b...)
	t.ends = append(t.ends, len(t.arena))
	t.put(b, num)
	return num
}

func (t *idTable) put(b []byte, num int32) {
	key := idKey(b)
	mask := uint64(len(t.slots) - 1)
	i := idHash(b, key) & mask
	for t.slots[i].num != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = idSlot{key: key, num: num + 1}
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
