// Package strhash hashes the short strings document and query ids are,
// for the open-addressing tables of the run reader (trecfmt) and the
// scorer (metrics).
package strhash

import (
	"hash/maphash"
	"math/bits"
)

// String hashes s, a short string such as an id (wyhash's mixing: a
// 128-bit product folded), cheaper than hash/maphash for such strings; seed
// is random per table (NewSeed).
func String(s string, seed uint64) uint64 {
	const m1, m2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(s)
	for len(s) > 16 {
		seed = mix(le64(s)^m1, le64(s[8:])^seed)
		s = s[16:]
	}
	var a, b uint64
	switch k := len(s); {
	case k >= 8:
		a, b = le64(s), le64(s[k-8:])
	case k >= 4:
		a, b = le32(s), le32(s[k-4:])
	case k > 0:
		a = uint64(s[0])<<16 | uint64(s[k>>1])<<8 | uint64(s[k-1])
	}
	return mix(a^m2, b^seed^uint64(n)*m1)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// NewSeed returns a random seed for String.
func NewSeed() uint64 {
	var h maphash.Hash // a zero Hash takes a random seed
	return h.Sum64() | 1
}
