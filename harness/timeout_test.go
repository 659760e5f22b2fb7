package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/systems"
)

// bounded is a scripted system that bounds its own searches
// (SearchTimeout), as an external system does with its config's timeout.
type bounded struct {
	scripted
	bound time.Duration
	delay time.Duration // how long each "slow-bounded" search takes
}

func (b *bounded) SearchTimeout() time.Duration { return b.bound }
func (b *bounded) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	if q == "slow-bounded" {
		select {
		case <-time.After(b.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return b.answers["q1"], nil
	}
	return b.scripted.Search(ctx, q, k)
}

// TestRunSystemBoundRaisesTaskTimeout: a system whose own timeout is
// above the task timeout (a config's "timeout": "65s" against the 60 s
// default) is given its own bound, not cut at the task timeout (issue 39
// item 4).
func TestRunSystemBoundRaisesTaskTimeout(t *testing.T) {
	p := prepared(t, task("t1", "slow-bounded", "a"), task("t2", "q1", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout = 20 * time.Millisecond
	sys := &bounded{scripted: scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}, bound: 2 * time.Second, delay: 100 * time.Millisecond}
	res, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)
	require.Empty(t, res.Failed(), "a search within the system's own bound (2 s) failed at the task timeout (20 ms)")
}

// TestRunTimeoutNamesTheLimitAndTheRestRuns: a timed-out search names the
// task timeout and how to raise it, and the corpus's other tasks still run
// once the abandoned call has returned (issue 39 item 4).
func TestRunTimeoutNamesTheLimitAndTheRestRuns(t *testing.T) {
	p := prepared(t, task("a-hang", "hang", "a"), task("b-next", "q1", "a"), task("c-last", "q1", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout = 50 * time.Millisecond
	res, err := Run(t.Context(), p, spec(&scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}), cfg)
	require.NoError(t, err)
	require.Contains(t, res.Tasks[0].Err, "search timed out after 50ms (the task timeout")
	require.Contains(t, res.Tasks[0].Err, "-task-timeout")
	for _, tr := range res.Tasks[1:] {
		require.Empty(t, tr.Err, "task %s after the timed-out one", tr.ID)
		require.Equal(t, 1.0, tr.Values[0], "task %s was not judged", tr.ID)
	}
}

// TestRunTimeoutWhenTheSystemGivesUpFirst: a system that returns the
// ended context's error the moment its deadline passes (it spins on
// ctx.Err, so it is often ready before the harness is woken) is ready at
// the same moment as the deadline; whichever the harness sees first, the
// task failed at the task timeout and says so — CI once saw 9 of 10 such
// searches named a timeout and the tenth the system's own error.
func TestRunTimeoutWhenTheSystemGivesUpFirst(t *testing.T) {
	var tasks []datasets.Task
	for i := range 40 {
		tasks = append(tasks, task(fmt.Sprintf("t%02d", i), "spin", "a"))
	}
	p := prepared(t, tasks...)
	cfg := DefaultRunConfig()
	cfg.TaskTimeout = 2 * time.Millisecond
	res, err := Run(t.Context(), p, spec(&scripted{}), cfg)
	require.NoError(t, err)
	for _, tr := range res.Tasks {
		require.Contains(t, tr.Err, "search timed out after 2ms (the task timeout", "task %s", tr.ID)
	}
}

// TestSettle: the outcome of a search whose call returned an error after
// its context ended is the timeout (or the interruption) that ended it,
// whichever of the two search saw first; an error before the end, or
// hits, are the call's own.
func TestSettle(t *testing.T) {
	ended, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-ended.Done()
	live := t.Context()
	stopped, stop := context.WithCancelCause(t.Context())
	stop(errors.New("SIGINT"))
	returned := make(chan struct{})
	timeoutMsg := "search timed out after 5s (the task timeout"
	for _, c := range []struct {
		name     string
		o        *searched
		ctx, run context.Context
		want     string // "" for the call's own outcome
	}{
		{"deadline seen first", nil, ended, live, timeoutMsg},
		{"the system's error seen first", &searched{err: context.DeadlineExceeded}, ended, live, timeoutMsg},
		{"the system's own error", &searched{err: errors.New("backend down")}, live, live, "backend down"},
		{"hits after the deadline", &searched{hits: hits("a")}, ended, live, ""},
		{"the run stopped, its error seen first", &searched{err: context.Canceled}, stopped, stopped, "interrupted after"},
	} {
		got, _, err := settle(c.o, c.ctx, c.run, 5*time.Second, 3*time.Millisecond, returned)
		switch {
		case c.want == "":
			require.NoError(t, err, c.name)
			require.Equal(t, c.o.hits, got, c.name)
		default:
			require.ErrorContains(t, err, c.want, c.name)
		}
	}
}

// TestRunInterruptIsNotATimeout: a cancelled run (SIGINT) records its
// search as interrupted, not as "timed out after 1m0s", marks the rest as
// not run because of the interrupt, and fails the cell with
// context.Canceled (issue 39 item 5).
func TestRunInterruptIsNotATimeout(t *testing.T) {
	p := prepared(t, task("a-hang", "hang", "a"), task("b-next", "q1", "a"))
	cfg := DefaultRunConfig() // 60 s task timeout
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, p, spec(&scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}), cfg)
	require.Less(t, time.Since(start), 10*time.Second)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "interrupted")
	require.NotNil(t, res)
	if e := res.Tasks[0].Err; !strings.HasPrefix(e, "interrupted") || strings.Contains(e, "timed out") {
		t.Errorf("task error = %q, want it recorded as interrupted", e)
	}
	require.Equal(t, "not run: the run was interrupted", res.Tasks[1].Err)
}

// TestRunTimeoutNeverReturnedStopsTheCorpus: a timed-out search that never
// returns keeps the system, so the corpus's other tasks are marked, saying
// why.
func TestRunTimeoutNeverReturnedStopsTheCorpus(t *testing.T) {
	p := prepared(t, task("a-hang", "hang-forever", "a"), task("b-next", "q1", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout, cfg.AbandonWait = 10*time.Millisecond, 20*time.Millisecond
	res, err := Run(t.Context(), p, spec(&scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}), cfg)
	require.ErrorContains(t, err, "did not return")
	require.Contains(t, res.Tasks[0].Err, "search timed out after 10ms")
	require.Equal(t, "not run: an earlier task of this corpus timed out and its search never returned", res.Tasks[1].Err)
}
