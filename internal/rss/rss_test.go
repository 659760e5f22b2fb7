package rss

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		name, in string
		want     Usage
		wantErr  string
	}{
		{"real layout: other lines ignored, kB scaled to bytes",
			"Name:\tbench.test\nVmPeak:\t 1000 kB\nVmHWM:\t    2016 kB\nVmRSS:\t    1500 kB\nThreads:\t3\n",
			Usage{Current: 1500 * 1024, Peak: 2016 * 1024}, ""},
		{"order does not matter", "VmRSS: 1 kB\nVmHWM: 2 kB\n", Usage{Current: 1024, Peak: 2048}, ""},
		{"kernel thread: no Vm lines", "Name:\tkthreadd\nState:\tS\n", Usage{}, "no VmRSS/VmHWM"},
		{"missing unit names the line", "VmRSS: 1 kB\nVmHWM: 2\n", Usage{}, "status:2: VmHWM"},
		{"not a number names the line", "VmHWM: x kB\nVmRSS: 1 kB\n", Usage{}, "status:1: VmHWM"},
		{"overflow is an error, not a wrap", "VmHWM: 18446744073709551615 kB\nVmRSS: 1 kB\n", Usage{}, "overflows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus(strings.NewReader(tt.in), "status")
			if tt.wantErr != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.wantErr)
				filelinetest.Want(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseStatus (-want +got):\n%s", diff)
			}
		})
	}
}

var sink []byte

// TestPeakFollowsAllocation checks against the real kernel: touching 64 MiB
// raises the peak by about that much, and ResetPeak (where permitted)
// brings it back below.
func TestPeakFollowsAllocation(t *testing.T) {
	if runtime.GOOS != "linux" {
		_, err := Read()
		require.ErrorIs(t, err, ErrUnsupported)
		t.Skip("linux only")
	}
	resetErr := ResetPeak()
	before, err := Read()
	require.NoError(t, err)
	require.Greater(t, before.Current, uint64(0))
	require.GreaterOrEqual(t, before.Peak, before.Current)

	const size = 64 << 20
	sink = make([]byte, size)
	for i := 0; i < len(sink); i += os.Getpagesize() {
		sink[i] = 1
	}
	after, err := Read()
	require.NoError(t, err)
	if after.Peak < before.Current+size*3/4 {
		t.Errorf("peak after touching 64 MiB = %d, want ≥ %d (current before %d)", after.Peak, before.Current+size*3/4, before.Current)
	}
	sink = nil

	if resetErr != nil {
		t.Skipf("peak reset not permitted here (%v): reset half not checked", resetErr)
	}
	require.NoError(t, ResetPeak())
	reset, err := Read()
	require.NoError(t, err)
	if reset.Peak >= after.Peak-size/2 {
		t.Errorf("peak after ResetPeak = %d, want well below %d: the 64 MiB were freed", reset.Peak, after.Peak)
	}
}
