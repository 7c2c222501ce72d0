// Package gcpolicy sets the garbage collector of deloreis's long-lived
// server processes (serve, mcp, dke mcp) for a large live heap (DL-0295).
//
// A compiled world is a big, pointer-rich live heap (about 820 bytes an
// object), and every call leaves a little garbage. With Go's default
// GOGC=100 a collection starts each time the heap grows by the size of the
// live heap, and each one marks the whole world: on a 3M-object world the
// collector took half the CPU and set the p99 of a staged add. The policy
// lets the heap grow further between collections (a higher GC percent) and
// bounds it with a soft memory limit, so that the heap stays within a share
// of the machine's memory whatever the world's size. An explicit GOGC or
// GOMEMLIMIT in the environment always wins: each governs its own knob and
// the policy sets only the other.
package gcpolicy

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/base/gcphase"
)

// The policy's figures (DL-0295).
const (
	// GCPercent is the GC percent a server runs with: a collection starts
	// when the heap has grown by four times the live heap since the last.
	GCPercent = 400
	// MemoryShareNum/MemoryShareDen is the share of the machine's memory
	// (or of the cgroup's limit) the soft memory limit is set at.
	MemoryShareNum, MemoryShareDen = 1, 2
	// MinMemoryLimit is the least soft limit the policy sets: below it a
	// tiny container would make the collector run all the time.
	MinMemoryLimit = 256 << 20
)

// Where a setting came from.
const (
	FromEnv     = "env"     // GOGC or GOMEMLIMIT was set: left alone
	FromPolicy  = "policy"  // set by this package
	FromDefault = "default" // Go's own default, untouched
)

// NoLimit is the memory limit of a process without one (Go's default).
const NoLimit = math.MaxInt64

// Policy is what a server runs with, and where each setting came from.
type Policy struct {
	GCPercent       int    `json:"gc_percent"` // -1: off
	GCPercentFrom   string `json:"gc_percent_from"`
	MemoryLimit     int64  `json:"memory_limit"` // bytes; NoLimit: none
	MemoryLimitFrom string `json:"memory_limit_from"`
}

// Decide is the policy for a process whose environment is getenv and whose
// machine has mem bytes of memory (0: unknown). A non-empty GOGC or
// GOMEMLIMIT leaves its knob as the runtime read it (reported as -2: the
// runtime's own value, see Apply). With the machine's memory unknown the
// heap would have no bound, so the GC percent stays at Go's default too.
func Decide(getenv func(string) string, mem uint64) Policy {
	p := Policy{GCPercent: 100, GCPercentFrom: FromDefault, MemoryLimit: NoLimit, MemoryLimitFrom: FromDefault}
	envLimit := strings.TrimSpace(getenv("GOMEMLIMIT")) != ""
	switch {
	case envLimit:
		p.MemoryLimit, p.MemoryLimitFrom = -2, FromEnv
	case mem > 0:
		p.MemoryLimit, p.MemoryLimitFrom = limitFor(mem), FromPolicy
	}
	switch {
	case strings.TrimSpace(getenv("GOGC")) != "":
		p.GCPercent, p.GCPercentFrom = -2, FromEnv
	case p.MemoryLimitFrom != FromDefault:
		// Only a bounded heap may grow further between collections.
		p.GCPercent, p.GCPercentFrom = GCPercent, FromPolicy
	}
	return p
}

// limitFor is the soft memory limit on a machine with mem bytes.
func limitFor(mem uint64) int64 {
	l := mem / MemoryShareDen * MemoryShareNum
	if l > math.MaxInt64 {
		return NoLimit
	}
	return max(int64(l), MinMemoryLimit)
}

// Apply sets what p sets and returns the policy in force afterwards, with
// the runtime's values in place of the environment's (-2 in Decide).
func Apply(p Policy) Policy {
	if p.GCPercentFrom == FromPolicy {
		debug.SetGCPercent(p.GCPercent)
		gcphase.SetSteady(p.GCPercent) // builds of worlds run at the default
	}
	if p.MemoryLimitFrom == FromPolicy {
		debug.SetMemoryLimit(p.MemoryLimit)
	}
	p.GCPercent, p.MemoryLimit = InForce()
	return p
}

// ForServer decides the policy of this process from its environment and
// the machine's memory and applies it.
func ForServer() Policy {
	return Apply(Decide(os.Getenv, MachineMemory()))
}

// String is the policy in one line, for diagnostics.
func (p Policy) String() string {
	gc := "off"
	if p.GCPercent >= 0 {
		gc = strconv.Itoa(p.GCPercent)
	}
	limit := "none"
	if p.MemoryLimit != NoLimit {
		limit = fmt.Sprintf("%.1f MiB", float64(p.MemoryLimit)/(1<<20))
	}
	return fmt.Sprintf("GOGC=%s (%s), memory limit %s (%s)", gc, p.GCPercentFrom, limit, p.MemoryLimitFrom)
}
