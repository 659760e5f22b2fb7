// Package cpuclass names the class of CPU that an embedding result depends
// on: the instruction-set features that make ONNX Runtime (MLAS) pick
// different float and int8 kernels, and so round differently.
//
// Two features matter (docs/portability.md). The float GEMM width (AVX-512,
// AVX2+FMA or SSE) changes the order of float additions. The int8 dot
// product decides quantized models: with VNNI (AVX-512 VNNI, AVX-VNNI) or
// AMX the u8×s8 products are summed exactly in 32 bits, without it
// (vpmaddubsw) pairs of products are summed into saturating 16-bit lanes.
// Two machines of one class give the same vectors; across classes quantized
// models differ (cosine 0.98–0.9999) and a near-tied document can swap.
//
// The class is read with CPUID (golang.org/x/sys/cpu), not /proc/cpuinfo:
// under qemu-x86_64 -cpu Haswell CPUID is the emulated CPU's, as ONNX
// Runtime sees it, while /proc/cpuinfo is the host's.
package cpuclass

import (
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/cpu"
)

// The classes this repository's baselines and parity references were made
// on. Reference is the class of the committed golden files' main baselines.
const (
	AVX512VNNI = "amd64-avx512-vnni" // Intel Xeon since Cascade Lake, AMD EPYC since Zen 4
	AVX2       = "amd64-avx2"        // AMD EPYC Zen 2/3, Intel before Skylake-X; qemu-x86_64 -cpu Haswell
	Reference  = AVX512VNNI
)

// Features are the instruction-set facts a class is named from.
type Features struct {
	Arch                     string // runtime.GOARCH
	AVX2, FMA, AVX512        bool   // AVX512: F, BW, DQ and VL, enabled by the OS
	AVX512VNNI, AVXVNNI, AMX bool
}

// Detect reads the running CPU's Features.
func Detect() Features {
	return Features{
		Arch: runtime.GOARCH,
		AVX2: cpu.X86.HasAVX2, FMA: cpu.X86.HasFMA,
		AVX512:     cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL,
		AVX512VNNI: cpu.X86.HasAVX512VNNI,
		AVXVNNI:    cpu.X86.HasAVXVNNI,
		AMX:        cpu.X86.HasAMXTile && cpu.X86.HasAMXInt8,
	}
}

// Name is the class of f: on amd64 "amd64-" + the float width (avx512,
// avx2, sse) + "-vnni" when int8 products are summed without saturation;
// elsewhere the architecture ("arm64").
func (f Features) Name() string {
	if f.Arch != "amd64" {
		return f.Arch
	}
	name := "amd64-sse"
	switch {
	case f.AVX512:
		name = "amd64-avx512"
	case f.AVX2 && f.FMA:
		name = "amd64-avx2"
	}
	if (f.AVX512 && f.AVX512VNNI) || f.AVXVNNI || f.AMX {
		name += "-vnni"
	}
	return name
}

// Current is the class of the running CPU.
func Current() string { return current }

var current = Detect().Name()

// File returns the reference file of a CPU-dependent result named name in
// dir for the running class, and the class that made it: dir/<class>/name
// when that exists, else dir/name, made on Reference. A caller whose class
// differs from the file's compares at a cross-class bound (docs/portability.md).
func File(dir, name string) (path, madeOn string) {
	p := filepath.Join(dir, current, name)
	if _, err := os.Stat(p); err == nil {
		return p, current
	}
	return filepath.Join(dir, name), Reference
}
