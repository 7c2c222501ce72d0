// Package gcphase holds the garbage collector at Go's default GC percent
// while a large heap is being built, in a process whose policy otherwise
// lets the heap grow further between collections (internal/gcpolicy's
// server policy, DL-0359).
//
// A high GC percent pays off in a steady state, where a little garbage is
// made against a live heap that stays put: collections are rare. While a
// world is compiled the live heap is what grows, and the heap may reach
// (1 + percent/100) times what was live at the last collection before the
// next one starts: at 400, a process opening a 1M-object world peaked at
// twice the memory it needed at the default. A build therefore runs at the
// default, and the steady percent comes back when the last build ends.
//
// The percent is lowered only where a policy has said its steady percent:
// the plain command line and GOGC from the environment keep theirs.
//
// A build is also paced by a soft memory limit (DL-0379): after each
// collection the limit is set at what the runtime holds besides the heap,
// plus the live heap, plus a headroom of the larger of MinHeadroom and a
// quarter of the live heap, never above the limit in force before the
// build. At the default percent the heap may otherwise grow to twice the
// live heap: a first compile of a 10M-object world, about 2.4 GB live,
// peaked at 4.7 GB. The headroom keeps that at live plus a gigabyte or a
// quarter, while a small build, whose heap never reaches the headroom, is
// paced by the percent alone. A GOGC in the environment (including off)
// leaves the pacing to it.
//
// A build that asks for a smaller least headroom (BuildingWithin: an
// import, whose heap at its peak is mostly the world and the objects it
// will write, DL-0506) has it while it runs: the smallest asked for by
// the builds running is the one in force.
//
// A build keeps the memory it holds: when a collection has freed much of
// what it made (a first compile letting go of its decoded entries,
// DL-0532), the limit would have the runtime give that memory back, and
// the build would fault it in again seconds later as it allocates anew,
// each page zeroed by the kernel. While the process holds more than the
// limit would allow, the limit is what it holds (and has resident: a
// reservation no one wrote is not held) and the percent is off: the next
// collection comes when the heap fills that memory.
//
// A build that loads a world from its file (Loading, DL-0390) makes
// almost no garbage: nearly all it allocates is the world it returns. A
// collection then only marks a heap that is all live, again and again as
// it doubles: a second of CPU in a 3-second open of a 10M-object world.
// While every build running is such a load, collection is off, bounded by
// a memory limit of the heap now plus what the loads expect to add plus
// the headroom, so that an estimate gone wrong costs collections, not
// memory.
package gcphase

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
)

// defaultPercent is Go's own GC percent, the one a build runs at.
const defaultPercent = 100

// MinHeadroom is the least the heap may grow past the live heap during a
// build before a collection starts (DL-0379).
const MinHeadroom = 1 << 30

// headroomShare: the headroom is at least live/headroomShare, so that a
// very large live heap is not collected every MinHeadroom bytes.
const headroomShare = 4

var (
	mu       sync.Mutex
	steady   int // the policy's GC percent; 0: no policy has set one
	building int // builds running now

	getenv     = os.Getenv // the environment, replaced by tests
	pacing     bool        // the builds' memory limit is in force
	outerLimit int64       // the memory limit in force before the first build
	epoch      uint64      // counts pacing periods: a stale cleanup does nothing

	loads      int    // builds running now that are loads (Loading)
	loadBytes  uint64 // what those loads expect to add to the live heap
	off        bool   // collection is off for the loads
	offPercent int    // the GC percent in force when it was turned off

	holding     bool // the percent is off: the build holds more than its limit would allow
	holdPercent int  // the GC percent in force when holding began

	within map[uint64]int // the least headrooms the running builds asked for (BuildingWithin), and how many asked for each
)

// leastHeadroom is the least headroom in force: the smallest a running
// build asked for, MinHeadroom when none did; the caller holds mu.
func leastHeadroom() uint64 {
	least := uint64(MinHeadroom)
	for h := range within {
		least = min(least, h)
	}
	return least
}

// SetSteady records that the process's policy set the GC percent to
// percent, so that builds may lower it and restore it after. It is called
// once, at start, by the code that applied the policy.
func SetSteady(percent int) {
	mu.Lock()
	defer mu.Unlock()
	steady = percent
}

// Building marks the start of a large build and returns the function that
// marks its end (safe to call more than once). Builds may overlap: the
// percent is lowered by the first and restored by the last.
func Building() (done func()) {
	mu.Lock()
	building++
	if building == 1 {
		if steady > defaultPercent {
			debug.SetGCPercent(defaultPercent)
		}
		startPacing()
	}
	settleLoads() // a build that is not a load turns collection back on
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			building--
			settleLoads()
			if building == 0 {
				setHolding(false) // before the steady percent comes back
				if steady > defaultPercent {
					debug.SetGCPercent(steady)
				}
				stopPacing()
			}
			mu.Unlock()
		})
	}
}

// BuildingWithin is Building for a build whose heap may grow past the
// live heap by no more than the larger of least and a quarter of the live
// heap before a collection starts, rather than by MinHeadroom (DL-0506):
// more collections, a lower peak. A least above MinHeadroom changes
// nothing.
func BuildingWithin(least uint64) (done func()) {
	mu.Lock()
	if within == nil {
		within = map[uint64]int{}
	}
	within[least]++
	mu.Unlock()
	built := Building()
	mu.Lock()
	if pacing {
		setBuildLimit() // the new least in force now, not at the next collection
	}
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			built()
			mu.Lock()
			if within[least]--; within[least] == 0 {
				delete(within, least)
			}
			if pacing {
				setBuildLimit()
			}
			mu.Unlock()
		})
	}
}

// Loading marks that a build running now (within Building) loads a
// world that adds about expect bytes to the live heap and makes little
// garbage, and returns the function that marks the load's end (safe to
// call more than once). While every build running is a load, collection
// is off (DL-0390).
func Loading(expect uint64) (done func()) {
	mu.Lock()
	loads++
	loadBytes += expect
	settleLoads()
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			loads--
			loadBytes -= expect
			settleLoads()
			mu.Unlock()
		})
	}
}

// settleLoads turns collection off when every build running is a load
// and the pace is the builds' own, and back on otherwise; the caller
// holds mu.
func settleLoads() {
	want := building > 0 && loads >= building && pacing
	switch {
	case want && !off:
		setHolding(false)
		off = true
		offPercent = debug.SetGCPercent(-1)
		setBuildLimit()
	case !want && off:
		off = false
		debug.SetGCPercent(offPercent)
		if pacing {
			setBuildLimit()
		}
	}
}

// startPacing puts the builds' memory limit in force and has it renewed
// after every collection; the caller holds mu.
func startPacing() {
	if getenv("GOGC") != "" {
		return // the environment governs the pace
	}
	outerLimit = debug.SetMemoryLimit(-1)
	pacing = true
	epoch++
	setBuildLimit()
	watch(epoch)
}

// stopPacing gives back the limit in force before the first build; the
// caller holds mu.
func stopPacing() {
	if pacing {
		pacing = false
		setHolding(false)
		debug.SetMemoryLimit(outerLimit)
	}
}

// sentinel is an object nothing keeps: its cleanup runs once a collection
// has found it unreachable, which is how the pacing learns that one ran.
// It holds a pointer so that it is never packed with other small objects,
// which could keep it alive.
type sentinel struct{ _ *byte }

// watch arranges for afterGC to run after the next collection.
func watch(ep uint64) {
	runtime.AddCleanup(&sentinel{}, afterGC, ep)
}

// afterGC renews the limit from the live heap the collection found, and
// watches for the next one, for as long as the pacing period ep lasts.
func afterGC(ep uint64) {
	mu.Lock()
	defer mu.Unlock()
	if !pacing || ep != epoch {
		return
	}
	setBuildLimit()
	watch(ep)
}

// setBuildLimit sets the memory limit from the runtime's figures; the
// caller holds mu.
func setBuildLimit() {
	live, other, held := readMemory()
	if off {
		live += loadBytes // what the loads will add, uncollected
	}
	l := buildLimitWithin(live, other, leastHeadroom())
	// What the process holds past that limit is memory a collection has
	// just freed: kept, the build allocates into it again; given back,
	// the build faults it in again (DL-0379). Only then is what is
	// resident read.
	keep := int64(min(held, 1<<62))
	hold := !off && keep > l
	if hold {
		keep = min(keep, int64(min(residentAnon(), 1<<62)))
		hold = keep > l && keep <= outerLimit
	}
	setHolding(hold)
	if hold {
		l = keep
	}
	debug.SetMemoryLimit(min(outerLimit, l))
}

// readMemory returns the heap in use, which right after a collection is
// the live heap it found and a little allocated since, what the runtime
// holds besides its heap spans (stacks, metadata, buffers), which the
// memory limit counts too, and all it holds from the system, as the
// limit counts it: heap spans in use or free but not given back (some
// perhaps never written, see residentAnon), and the rest. ReadMemStats
// stops the world for a moment, once a collection; runtime/metrics would
// not, but it costs every command of the slim binary its start-up
// (TestDeloreisLinksNoNetwork).
func readMemory() (live, other, held uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	other = ms.StackSys + ms.MSpanSys + ms.MCacheSys + ms.BuckHashSys + ms.GCSys + ms.OtherSys
	return ms.HeapAlloc, other, ms.HeapSys - ms.HeapReleased + other
}

// residentAnon returns the anonymous memory the process has resident
// (RssAnon in /proc/self/status), or 0 where that cannot be read. Heap
// the runtime has not given back may never have been touched (a
// reservation made to be advised, hugemem.AdviseHeap): not resident, it
// is no memory to keep.
func residentAnon() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nRssAnon:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// setHolding turns the GC percent off while the builds hold more memory
// than their limit would allow, so that a collection comes only when the
// heap fills what they hold, and back on; the caller holds mu.
func setHolding(hold bool) {
	switch {
	case hold && !holding:
		holding = true
		holdPercent = debug.SetGCPercent(-1)
	case !hold && holding:
		holding = false
		debug.SetGCPercent(holdPercent)
	}
}

// buildLimit is the memory limit for a live heap of live bytes with other
// bytes held outside the heap.
func buildLimit(live, other uint64) int64 {
	return buildLimitWithin(live, other, MinHeadroom)
}

// buildLimitWithin is buildLimit with a least headroom of least.
func buildLimitWithin(live, other, least uint64) int64 {
	const most = 1 << 62 // no sum of three figures below it overflows
	l := min(other, most) + min(live, most) + max(min(least, most), min(live, most)/headroomShare)
	return int64(min(l, most))
}
