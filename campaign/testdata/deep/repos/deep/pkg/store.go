package pkg

// Store keeps values by key.
type Store struct {
	m map[string]int
}

// Get returns the value of k.
func (s *Store) Get(k string) int {
	return s.m[k]
}
