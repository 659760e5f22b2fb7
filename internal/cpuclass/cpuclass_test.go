package cpuclass

import (
	"path/filepath"

	"github.com/stretchr/testify/require"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	tests := []struct {
		name   string
		f      Features
		want   string
		reason string
	}{
		{"xeon", Features{Arch: "amd64", AVX2: true, FMA: true, AVX512: true, AVX512VNNI: true, AMX: true}, AVX512VNNI,
			"AMX and AVX-512 VNNI both sum int8 products exactly: one class"},
		{"epyc-zen4", Features{Arch: "amd64", AVX2: true, FMA: true, AVX512: true, AVX512VNNI: true}, AVX512VNNI, "this repository's reference machine class"},
		{"epyc-zen3", Features{Arch: "amd64", AVX2: true, FMA: true}, AVX2, "the saturating u8×s8 kernel"},
		{"skylake-x", Features{Arch: "amd64", AVX2: true, FMA: true, AVX512: true}, "amd64-avx512", "wide float kernels, saturating int8"},
		{"alder-lake", Features{Arch: "amd64", AVX2: true, FMA: true, AVXVNNI: true}, "amd64-avx2-vnni", "AVX2 float kernels, exact int8"},
		{"old", Features{Arch: "amd64"}, "amd64-sse", "neither AVX2 nor FMA"},
		{"vnni-without-avx512", Features{Arch: "amd64", AVX2: true, FMA: true, AVX512VNNI: true}, AVX2, "AVX-512 VNNI is unusable with AVX-512 switched off by the OS"},
		{"arm", Features{Arch: "arm64"}, "arm64", "other architectures by name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Name(); got != tt.want {
				t.Errorf("%+v.Name() = %q, want %q (%s)", tt.f, got, tt.want, tt.reason)
			}
		})
	}
}

// TestCurrentAgreesWithProcCPUInfo checks CPUID detection against the
// kernel's flags where both describe the same CPU: not under qemu-user,
// whose /proc/cpuinfo is the host's.
func TestCurrentAgreesWithProcCPUInfo(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("/proc/cpuinfo flags are read on linux/amd64 only")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
			break
		}
	}
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	f := Detect()
	if flags["avx2"] != f.AVX2 || flags["avx512_vnni"] != f.AVX512VNNI {
		t.Skipf("CPUID (avx2 %v, avx512_vnni %v) is not the host's /proc/cpuinfo: an emulated CPU (qemu-user)", f.AVX2, f.AVX512VNNI)
	}
	t.Logf("CPU class %s", Current())
	if flags["avx512f"] && flags["avx512_vnni"] && flags["avx512bw"] && flags["avx512dq"] && flags["avx512vl"] && Current() != AVX512VNNI {
		t.Errorf("Current() = %s on a CPU with AVX-512 VNNI, want %s", Current(), AVX512VNNI)
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	if p, c := File(dir, "m.json"); p != filepath.Join(dir, "m.json") || c != Reference {
		t.Errorf("File without a class directory = %s, %s; want the top-level file of %s", p, c, Reference)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, Current()), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, Current(), "m.json"), nil, 0o644))
	if p, c := File(dir, "m.json"); p != filepath.Join(dir, Current(), "m.json") || c != Current() {
		t.Errorf("File = %s, %s; want this class's own file", p, c)
	}
}
