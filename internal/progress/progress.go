// Package progress has the two pieces of a long step's progress line: a
// rate over the last minute (Meter) and the time left at a rate (ETA).
package progress

import "time"

// rateWindow is how far back the progress rate looks. A rate averaged from
// the start of a long embedding run hides a slowdown or a pause (a process
// stopped with SIGSTOP, a machine that got busy) for the rest of the run;
// one over the last minute follows them within a minute.
const rateWindow = time.Minute

// Meter turns (time, docs done) samples into a rate over the last
// rateWindow. It keeps the samples inside the window, and the newest one
// before it when fewer than two are inside, so that there are always two
// points to measure between.
type Meter struct {
	at   []time.Time
	done []int
}

// Start drops every sample and records the first one.
func (m *Meter) Start(now time.Time, done int) {
	m.at, m.done = append(m.at[:0], now), append(m.done[:0], done)
}

// Observe records that done docs were finished at now and returns the rate
// in docs per second since the oldest sample kept, 0 when no time passed.
func (m *Meter) Observe(now time.Time, done int) float64 {
	m.at, m.done = append(m.at, now), append(m.done, done)
	drop := 0
	for drop < len(m.at)-2 && now.Sub(m.at[drop]) >= rateWindow {
		drop++
	}
	m.at, m.done = m.at[drop:], m.done[drop:]
	dt := now.Sub(m.at[0]).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(done-m.done[0]) / dt
}

// ETA is the time left for n more items at perSecond, to the second, or "?"
// without a rate.
func ETA(n int, perSecond float64) string {
	if perSecond <= 0 {
		return "?"
	}
	return time.Duration(float64(n) / perSecond * float64(time.Second)).Round(time.Second).String()
}
