package dense

import "time"

// rateWindow is how far back the progress rate looks. A rate averaged from
// the start of a long embedding run hides a slowdown or a pause (a process
// stopped with SIGSTOP, a machine that got busy) for the rest of the run;
// one over the last minute follows them within a minute.
const rateWindow = time.Minute

// meter turns (time, docs done) samples into a rate over the last
// rateWindow. It keeps the samples inside the window, and the newest one
// before it when fewer than two are inside, so that there are always two
// points to measure between.
type meter struct {
	at   []time.Time
	done []int
}

// start drops every sample and records the first one.
func (m *meter) start(now time.Time, done int) {
	m.at, m.done = append(m.at[:0], now), append(m.done[:0], done)
}

// observe records that done docs were finished at now and returns the rate
// in docs per second since the oldest sample kept, 0 when no time passed.
func (m *meter) observe(now time.Time, done int) float64 {
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
