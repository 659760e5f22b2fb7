package progress

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMeterFollowsTheLastMinute(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var m Meter
	m.Start(at(0), 0)
	// 10 docs/s for two minutes, one sample every 5 s.
	var rate float64
	for s := 5; s <= 120; s += 5 {
		rate = m.Observe(at(s), 10*s)
	}
	assert.InDelta(t, 10.0, rate, 1e-9)

	// Stopped for 43 minutes: the first sample after it spans the stop.
	resumed := 120 + 43*60
	rate = m.Observe(at(resumed), 1200)
	assert.InDelta(t, 0.0, rate, 1e-9, "nothing was done during the stop")

	// 20 docs/s after it: the next sample no longer sees the stop.
	rate = m.Observe(at(resumed+5), 1300)
	assert.InDelta(t, 20.0, rate, 1e-9)

	// A rate from the start would be (1300 docs)/(2,705 s) ≈ 0.48 docs/s.
	for s := 10; s <= 90; s += 5 {
		rate = m.Observe(at(resumed+s), 1200+20*s)
	}
	assert.InDelta(t, 20.0, rate, 1e-9)
	assert.LessOrEqual(t, len(m.at), int(rateWindow/(5*time.Second))+2, "samples outside the window are dropped")
}

func TestMeterNoTimePassed(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var m Meter
	m.Start(t0, 3)
	assert.Equal(t, 0.0, m.Observe(t0, 7))
	assert.InDelta(t, 2.0, m.Observe(t0.Add(2*time.Second), 7), 1e-9)
}

func TestETA(t *testing.T) {
	for _, tc := range []struct {
		n    int
		r    float64
		want string
	}{
		{1000, 100, "10s"},
		{90_000, 50, "30m0s"},
		{7, 2, "4s"},
		{5, 0, "?"},
		{0, 10, "0s"},
	} {
		assert.Equal(t, tc.want, ETA(tc.n, tc.r), "ETA(%d, %v)", tc.n, tc.r)
	}
}
