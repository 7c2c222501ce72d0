package gcpolicy

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"sync"
)

// ReportEnv names the file a server appends its GC statistics to, one
// JSON line each at start, on SIGUSR1 (where there is one) and at stop:
// how benchmarks read the collector's share of a phase and how tests see
// the policy a server process really runs with.
const ReportEnv = "DELOREIS_GC_REPORT"

// Stats is the policy in force and the collector's work so far, as
// runtime/metrics estimates it (CPU figures are comparable only with one
// another).
type Stats struct {
	Event string `json:"event"` // start, signal or stop
	Policy
	GCCycles    uint64  `json:"gc_cycles"`
	GCCPU       float64 `json:"gc_cpu_seconds"`      // all GC work, idle-time marking included
	GCIdleCPU   float64 `json:"gc_idle_cpu_seconds"` // marking done on otherwise idle processors
	UserCPU     float64 `json:"user_cpu_seconds"`
	ScavengeCPU float64 `json:"scavenge_cpu_seconds"`
	HeapLive    uint64  `json:"heap_live_bytes"` // marked live by the last cycle
	HeapGoal    uint64  `json:"heap_goal_bytes"`
	Mapped      uint64  `json:"mapped_bytes"` // all memory the runtime holds from the OS
}

var statNames = []string{
	"/gc/gogc:percent",
	"/gc/gomemlimit:bytes",
	"/gc/cycles/total:gc-cycles",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/gc/mark/idle:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
	"/cpu/classes/scavenge/total:cpu-seconds",
	"/gc/heap/live:bytes",
	"/gc/heap/goal:bytes",
	"/memory/classes/total:bytes",
}

// read samples the metrics of statNames, in that order.
func read() []metrics.Sample {
	s := make([]metrics.Sample, len(statNames))
	for i, n := range statNames {
		s[i].Name = n
	}
	metrics.Read(s)
	return s
}

func u64(v metrics.Value) uint64 {
	if v.Kind() == metrics.KindUint64 {
		return v.Uint64()
	}
	return 0
}

func f64(v metrics.Value) float64 {
	if v.Kind() == metrics.KindFloat64 {
		return v.Float64()
	}
	return 0
}

// InForce is the GC percent (-1: off) and the memory limit the runtime
// runs with now.
func InForce() (gcPercent int, memoryLimit int64) {
	s := read()
	// Off reads as the uint64 of -1; the conversion gives -1 back.
	return int(int64(u64(s[0].Value))), int64(u64(s[1].Value))
}

// ReadStats samples the runtime now; p says where its settings came from.
func ReadStats(event string, p Policy) Stats {
	s := read()
	st := Stats{Event: event, Policy: p,
		GCCycles:    u64(s[2].Value),
		GCCPU:       f64(s[3].Value),
		GCIdleCPU:   f64(s[4].Value),
		UserCPU:     f64(s[5].Value),
		ScavengeCPU: f64(s[6].Value),
		HeapLive:    u64(s[7].Value),
		HeapGoal:    u64(s[8].Value),
		Mapped:      u64(s[9].Value),
	}
	st.GCPercent, st.MemoryLimit = InForce()
	return st
}

// GCShare is the collector's share of the CPU the process used between two
// samples, with and without the marking it did on idle processors.
func GCShare(from, to Stats) (withIdle, withoutIdle float64) {
	gc := to.GCCPU - from.GCCPU
	idle := to.GCIdleCPU - from.GCIdleCPU
	used := gc + (to.UserCPU - from.UserCPU) + (to.ScavengeCPU - from.ScavengeCPU)
	if used <= 0 {
		return 0, 0
	}
	withIdle = gc / used
	if used > idle {
		withoutIdle = (gc - idle) / (used - idle)
	}
	return withIdle, withoutIdle
}

// reporter appends Stats lines to a file.
type reporter struct {
	mu     sync.Mutex
	w      io.WriteCloser
	policy Policy
}

func (r *reporter) write(event string) {
	line, _ := json.Marshal(ReadStats(event, r.policy))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.Write(append(line, '\n')) // one write a line: readers never see half of one
}

// StartServer applies the server policy (ForServer) and, when ReportEnv
// names a file, starts reporting to it. It returns what to call when the
// server stops; a report file that cannot be opened is said on stderr and
// does not stop the server.
func StartServer(stderr io.Writer) (stop func()) {
	p := ForServer()
	path := os.Getenv(ReportEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "deloreis: %s: %v\n", ReportEnv, err)
		return func() {}
	}
	r := &reporter{w: f, policy: p}
	r.write("start")
	unwatch := onSignal(func() { r.write("signal") })
	return func() {
		unwatch()
		r.write("stop")
		f.Close()
	}
}
