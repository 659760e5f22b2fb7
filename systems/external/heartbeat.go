package external

import (
	"sync"
	"time"
)

// heartbeatEvery is how often a long index command is reported while it
// runs: an external indexer says nothing about its own
// progress, so the log shows at least that it is alive and how long it has
// left before its timeout.
const heartbeatEvery = 10 * time.Second

// heartbeat logs "what: T so far (timeout in R)" every interval until the
// returned stop is called; stop waits for the last line, so nothing is
// logged after it returns (a test's Logf must not be called after the test).
func heartbeat(interval, timeout time.Duration, logf func(format string, args ...any), what string) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				el := now.Sub(start)
				logf("%s: %s so far (timeout in %s)", what, el.Round(time.Second), (timeout - el).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
