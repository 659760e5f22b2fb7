package external

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A work directory belongs to one process at a time. Two processes that
// run the same system on the same corpus at once — shards on one machine
// sharing the cache, or go test running two packages' tests — would share
// its state: an index command rebuilding what the other's server reads,
// or a store that admits one writer (Codira's DuckDB file: "Could not set
// lock on file"). So a System holds an advisory lock on "<work>.lock" from
// Index to Close; a second process waits for it, saying so once. Within
// one process the lock is shared (counted): its Systems for one work
// directory were never serialised and must not deadlock on each other.
var workLocks = struct {
	sync.Mutex
	held map[string]*heldLock
}{held: map[string]*heldLock{}}

// heldLock is this process's hold of one lock file: mu orders the
// goroutines that take or release it, n counts the holds.
type heldLock struct {
	mu sync.Mutex
	f  *os.File
	n  int
}

// lockPoll is how often a process waiting for another's work directory
// tries again.
const lockPoll = 200 * time.Millisecond

// lockWork takes the lock of work (waiting while another process holds
// it, until ctx ends) and returns its release, which is safe to call more
// than once.
func lockWork(ctx context.Context, work string, logf func(string, ...any)) (func(), error) {
	path := work + ".lock"
	workLocks.Lock()
	h := workLocks.held[path]
	if h == nil {
		h = &heldLock{}
		workLocks.held[path] = h
	}
	workLocks.Unlock()
	// Held across the wait: another goroutine of this process asking for
	// the same directory waits here, then shares the lock.
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n > 0 {
		h.n++
		return h.releaser(), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if ok {
			break
		}
		if !said {
			logf("waiting for another process that uses %s (the lock %s)", work, path)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another process that uses %s: %w", work, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	h.f, h.n = f, 1
	return h.releaser(), nil
}

// releaser returns the release of one hold.
func (h *heldLock) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.n--; h.n == 0 {
				h.f.Close() // closing the file releases the lock
				h.f = nil
			}
		})
	}
}
