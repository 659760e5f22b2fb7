package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// retryStats counts what the retries of one System did, for Warnings.
type retryStats struct {
	status, conn, gaveUp atomic.Int64
}

// retryCounts is a snapshot of retryStats.
type retryCounts struct{ status, conn, gaveUp int64 }

func (s *retryStats) load() retryCounts {
	return retryCounts{s.status.Load(), s.conn.Load(), s.gaveUp.Load()}
}

// warning is one line for Warnings of the retries counted since prev (the
// counts last reported: each task's line counts its own retries, not the
// System's running total), "" when nothing was retried since.
func (c retryCounts) warning(prev retryCounts, name string, attempts int) string {
	st, cn, g := c.status-prev.status, c.conn-prev.conn, c.gaveUp-prev.gaveUp
	if st+cn+g == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d requests retried (%d on HTTP 429/5xx, %d on a broken connection); %d failed after %d attempts (retry.attempts)", name, st+cn, st, cn, g, attempts)
}

// retrier is an http.RoundTripper that retries by a RetrySpec.
type retrier struct {
	base     http.RoundTripper
	spec     RetrySpec
	initial  time.Duration
	maxDelay time.Duration
	stats    *retryStats
	logf     func(format string, args ...any)

	mu  sync.Mutex
	rng *rand.Rand
	// sleep waits d or until ctx ends; tests replace it to record waits.
	sleep func(ctx context.Context, d time.Duration) error
}

func newRetrier(base http.RoundTripper, spec RetrySpec, seed uint64, stats *retryStats, logf func(string, ...any)) *retrier {
	if spec.Seed != 0 {
		seed = spec.Seed
	}
	return &retrier{
		base: base, spec: spec, stats: stats, logf: logf,
		initial:  spec.InitialWait(),
		maxDelay: spec.MaxWait(),
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		sleep:    sleepCtx,
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before retry n (1-based): initial·2^(n-1), at most
// max_delay, times a jitter factor in [0.5, 1).
func (r *retrier) backoff(n int) time.Duration {
	d := r.initial << min(n-1, 30)
	if d <= 0 || d > r.maxDelay {
		d = r.maxDelay
	}
	r.mu.Lock()
	f := 0.5 + r.rng.Float64()/2
	r.mu.Unlock()
	return time.Duration(float64(d) * f)
}

func (r *retrier) RoundTrip(req *http.Request) (*http.Response, error) {
	for n := 1; ; n++ {
		resp, err := r.base.RoundTrip(req)
		why, after := retryable(resp, err)
		if why == "" || req.Context().Err() != nil {
			return resp, err
		}
		if n >= r.spec.Attempts {
			r.stats.gaveUp.Add(1)
			return resp, err
		}
		if after > r.maxDelay {
			r.stats.gaveUp.Add(1)
			if resp != nil {
				resp.Body.Close()
			}
			return nil, fmt.Errorf("%s: Retry-After %s exceeds %s (retry.max_delay)", why, after, r.maxDelay)
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return resp, err // the body cannot be sent again
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return resp, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			r.stats.status.Add(1)
		} else {
			r.stats.conn.Add(1)
		}
		wait := max(r.backoff(n), after)
		r.logf("%s %s: %s; retry %d of %d in %s", req.Method, req.URL.Redacted(), why, n, r.spec.Attempts-1, wait.Round(time.Millisecond))
		if serr := r.sleep(req.Context(), wait); serr != nil {
			return nil, fmt.Errorf("%s; waiting to retry: %w", why, serr)
		}
	}
}

// retryable says why a round trip is worth retrying ("" if not) and the
// wait its Retry-After header asks for (0 if none).
func retryable(resp *http.Response, err error) (string, time.Duration) {
	if err != nil {
		if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "connection: " + err.Error(), 0
		}
		return "", 0
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode/100 != 5 {
		return "", 0
	}
	return "HTTP " + strconv.Itoa(resp.StatusCode), retryAfter(resp.Header.Get("Retry-After"))
}

// retryAfter parses a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// limits holds the concurrency limit of each config (max_concurrency),
// shared by every System of that config in this process.
var limits = struct {
	sync.Mutex
	sem map[string]chan struct{}
}{sem: map[string]chan struct{}{}}

// acquire waits for one of the n slots of name (n <= 0: no limit); the
// returned function frees it.
func acquire(ctx context.Context, name string, n int) (func(), error) {
	if n <= 0 {
		return func() {}, nil
	}
	limits.Lock()
	sem, ok := limits.sem[name]
	if !ok || cap(sem) != n {
		sem = make(chan struct{}, n)
		limits.sem[name] = sem
	}
	limits.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for one of %d slots (max_concurrency): %w", n, ctx.Err())
	}
}
