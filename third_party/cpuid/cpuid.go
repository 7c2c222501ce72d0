// Package cpuid stands in for github.com/klauspost/cpuid/v2 (see
// README.md): it answers the few features github.com/zeebo/blake3 and
// github.com/zeebo/xxh3 ask about from golang.org/x/sys/cpu, which reads
// them with a handful of CPUID instructions, where klauspost/cpuid's
// initialiser runs its whole detection (some fifty of them, each a trap to
// the hypervisor on a virtual machine) at every start of every program that
// links it.
package cpuid

import "golang.org/x/sys/cpu"

// FeatureID names a CPU feature, as in klauspost/cpuid.
type FeatureID int

// The features the programs' dependencies ask about. Each means what it
// means in klauspost/cpuid: set only when the CPU has it and, for the AVX
// ones, the operating system saves its registers.
const (
	UNKNOWN FeatureID = iota - 1
	SSE2              // P4 SSE functions
	SSE4              // Penryn SSE4.1 functions
	AVX2              // AVX2 functions
	AVX512F           // AVX-512 Foundation
	lastID
)

// CPUInfo is what is known of the CPU.
type CPUInfo struct {
	has [lastID]bool
}

// CPU is the CPU the program runs on.
var CPU = CPUInfo{has: [lastID]bool{
	SSE2:    cpu.X86.HasSSE2,
	SSE4:    cpu.X86.HasSSE41,
	AVX2:    cpu.X86.HasAVX2,
	AVX512F: cpu.X86.HasAVX512F,
}}

// Has reports whether the CPU has the feature.
func (c *CPUInfo) Has(id FeatureID) bool {
	return id >= 0 && id < lastID && c.has[id]
}
