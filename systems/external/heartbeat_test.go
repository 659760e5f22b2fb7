package external

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeartbeatLogsUntilStopped(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	stop := heartbeat(20*time.Millisecond, time.Hour, logf, "peer: indexing corpus c")
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(lines) >= 2
	}, 10*time.Second, 5*time.Millisecond)
	stop()
	mu.Lock()
	n := len(lines)
	mu.Unlock()
	time.Sleep(60 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, lines, n, "no line after stop returned")
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "peer: indexing corpus c: "), l)
		assert.Contains(t, l, "so far (timeout in ")
	}
	stop() // a second stop is harmless
}
