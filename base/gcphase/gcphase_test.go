package gcphase

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// untouchedChild marks the process TestBuildDoesNotHoldUntouched runs
// its check in.
const untouchedChild = "GCPHASE_UNTOUCHED_CHILD"

// percentNow reads the GC percent in force.
func percentNow() int {
	p := debug.SetGCPercent(defaultPercent)
	debug.SetGCPercent(p)
	return p
}

func TestBuilding(t *testing.T) {
	defer debug.SetGCPercent(percentNow())
	tests := []struct {
		name   string
		steady int // 0: no policy
		set    int // the percent in force before
	}{
		{name: "no policy leaves the percent alone", steady: 0, set: 250},
		{name: "a policy at the default changes nothing", steady: 100, set: 100},
		{name: "a raised policy is lowered while building", steady: 400, set: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SetSteady(tt.steady)
			defer SetSteady(0)
			debug.SetGCPercent(tt.set)
			want := tt.set
			if tt.steady > defaultPercent {
				want = defaultPercent
			}
			outer := Building()
			if got := percentNow(); got != want {
				t.Fatalf("while building: GC percent %d, want %d", got, want)
			}
			inner := Building()
			inner()
			inner() // a second call changes nothing
			if got := percentNow(); got != want {
				t.Fatalf("after an overlapping build ended: GC percent %d, want %d", got, want)
			}
			outer()
			if got := percentNow(); got != tt.set {
				t.Fatalf("after the last build: GC percent %d, want %d back", got, tt.set)
			}
		})
	}
}

// limitNow reads the memory limit in force.
func limitNow() int64 { return debug.SetMemoryLimit(-1) }

func TestBuildLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name               string
		live, other, least uint64 // least 0: MinHeadroom
		want               int64
	}{
		{name: "a small heap gets the least headroom", live: 10 * mib, other: 5 * mib, want: 15*mib + MinHeadroom},
		{name: "headroom stays MinHeadroom up to four of it", live: 4 * MinHeadroom, other: 0, want: 5 * MinHeadroom},
		{name: "a large heap gets a quarter of it", live: 8 * MinHeadroom, other: mib, want: 10*MinHeadroom + mib},
		{name: "no overflow", live: 1 << 63, other: 1 << 63, want: 1 << 62},
		{name: "a smaller least headroom", live: 10 * mib, other: 5 * mib, least: 64 * mib, want: 79 * mib},
		{name: "a quarter of a large heap above the least", live: 1024 * mib, least: 64 * mib, want: 1280 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			least := tt.least
			if least == 0 {
				least = MinHeadroom
			}
			if got := buildLimitWithin(tt.live, tt.other, least); got != tt.want {
				t.Fatalf("buildLimitWithin(%d, %d, %d) = %d, want %d", tt.live, tt.other, least, got, tt.want)
			}
		})
	}
}

// TestBuildingWithin: a build that asks for a smaller least headroom
// lowers the limit while it runs, by what it asked for; a build asking
// for more than MinHeadroom changes nothing; the limit of the builds
// alone comes back when it ends.
func TestBuildingWithin(t *testing.T) {
	defer debug.SetMemoryLimit(limitNow())
	withGOGC(t, "")
	const outer = 1 << 42
	tests := []struct {
		name  string
		least uint64
		lower bool
	}{
		{name: "a smaller headroom lowers the limit", least: 64 << 20, lower: true},
		{name: "a larger one changes nothing", least: 2 * MinHeadroom, lower: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(outer)
			done := Building()
			defer done()
			plain := limitNow()
			within := BuildingWithin(tt.least)
			got := limitNow()
			// The heap moves a little between the two readings.
			if lowered := plain-got > MinHeadroom/2; lowered != tt.lower {
				t.Fatalf("limit %d within %d, %d without: lowered %v, want %v", got, tt.least, plain, lowered, tt.lower)
			}
			within()
			if after := limitNow(); after-plain > 64<<20 || plain-after > 64<<20 {
				t.Fatalf("after the build within %d ended: limit %d, want about %d", tt.least, after, plain)
			}
		})
	}
}

// waitLimit polls until ok holds of the memory limit, for up to ten
// seconds: the limit is renewed by a cleanup, after a collection.
func waitLimit(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	for range 1000 {
		if ok(limitNow()) {
			return
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: memory limit %d", what, limitNow())
}

// withGOGC has the package see gogc as the environment's GOGC for the
// rest of the test.
func withGOGC(t *testing.T, gogc string) {
	getenv = func(k string) string {
		if k == "GOGC" {
			return gogc
		}
		return ""
	}
	t.Cleanup(func() { getenv = os.Getenv })
}

var keep [][]byte // a live heap the pacing must see

func TestBuildingPaces(t *testing.T) {
	defer debug.SetMemoryLimit(limitNow())
	const outer = 1 << 42
	tests := []struct {
		name  string
		gogc  string
		paced bool
	}{
		{name: "a build is paced", gogc: "", paced: true},
		{name: "GOGC in the environment leaves the pace to it", gogc: "50", paced: false},
		{name: "GOGC=off too", gogc: "off", paced: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withGOGC(t, tt.gogc)
			debug.SetMemoryLimit(outer)
			outerDone := Building()
			if !tt.paced {
				if got := limitNow(); got != outer {
					t.Fatalf("while building: limit %d, want %d left alone", got, outer)
				}
				outerDone()
				return
			}
			if got := limitNow(); got >= outer || got < MinHeadroom {
				t.Fatalf("while building: limit %d, want in [%d, %d)", got, MinHeadroom, outer)
			}
			// The limit follows the live heap: 256 MiB more of it must
			// show in the limit after a collection.
			before := limitNow()
			for range 256 {
				keep = append(keep, make([]byte, 1<<20))
			}
			waitLimit(t, "after the live heap grew", func(l int64) bool { return l >= before+200<<20 && l < outer })
			inner := Building()
			inner()
			if got := limitNow(); got == outer {
				t.Fatal("an overlapping build's end lifted the limit while another runs")
			}
			outerDone()
			if got := limitNow(); got != outer {
				t.Fatalf("after the last build: limit %d, want %d back", got, outer)
			}
			keep = nil
			// A cleanup still pending must not set a limit again.
			for range 3 {
				runtime.GC()
				time.Sleep(20 * time.Millisecond)
			}
			if got := limitNow(); got != outer {
				t.Fatalf("after the pacing ended and collections ran: limit %d, want %d", got, outer)
			}
		})
	}
}

func TestLoading(t *testing.T) {
	defer debug.SetGCPercent(percentNow())
	defer debug.SetMemoryLimit(limitNow())
	const outer, expect = 1 << 42, 256 << 20
	tests := []struct {
		name  string
		gogc  string
		other bool // a build that is not a load runs beside the load
		off   bool // collection is off during the load
	}{
		{name: "a load alone runs uncollected", off: true},
		{name: "a build beside it keeps collection on", other: true},
		{name: "GOGC in the environment keeps collection on", gogc: "200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withGOGC(t, tt.gogc)
			debug.SetGCPercent(defaultPercent)
			debug.SetMemoryLimit(outer)
			build := Building()
			var other func()
			if tt.other {
				other = Building()
			}
			loaded := Loading(expect)
			if got := percentNow() < 0; got != tt.off {
				t.Fatalf("during the load: collection off %v, want %v", got, tt.off)
			}
			if tt.off {
				// The limit bounds the uncollected heap: the heap now, what
				// the load expects and the headroom, no more.
				live, rest, _ := readMemory()
				if got, most := limitNow(), buildLimit(live+expect, rest)+64<<20; got > most || got < expect+MinHeadroom {
					t.Fatalf("during the load: limit %d, want in [%d, %d]", got, expect+MinHeadroom, most)
				}
				// A build that is not a load turns collection back on
				// until it ends.
				beside := Building()
				if percentNow() < 0 {
					t.Fatal("a build beside the load left collection off")
				}
				beside()
				if percentNow() >= 0 {
					t.Fatal("collection stayed on after the build beside the load ended")
				}
			}
			loaded()
			loaded() // a second call changes nothing
			if got := percentNow(); got != defaultPercent {
				t.Fatalf("after the load: GC percent %d, want %d", got, defaultPercent)
			}
			if other != nil {
				other()
			}
			build()
			if got := limitNow(); got != outer {
				t.Fatalf("after the builds: limit %d, want %d back", got, outer)
			}
		})
	}
}

// TestBuildKeepsWhatItHolds: once a collection has freed much of what a
// build made, the build keeps the memory (the limit is what the process
// holds, the percent off) instead of giving it back to fault it in again;
// the percent comes back as it was when the build ends, and a load never
// holds.
func TestBuildKeepsWhatItHolds(t *testing.T) {
	defer debug.SetGCPercent(percentNow())
	defer debug.SetMemoryLimit(limitNow())
	const outer, least, made = 1 << 42, 16 << 20, 256 << 20
	tests := []struct {
		name   string
		steady int  // the policy's percent: it comes back after the build
		load   bool // a load runs: collection is off for it, not held
	}{
		{name: "a build keeps what it freed", steady: 0},
		{name: "a server's percent comes back after it", steady: 400},
		{name: "a load does not hold", load: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withGOGC(t, "")
			SetSteady(tt.steady)
			defer SetSteady(0)
			want := defaultPercent
			if tt.steady > 0 {
				want = tt.steady
			}
			debug.SetGCPercent(want)
			debug.SetMemoryLimit(outer)
			done := BuildingWithin(least)
			defer done() // a failed check must not leave the build running
			loaded := func() {}
			if tt.load {
				loaded = Loading(1 << 20)
				defer loaded()
			}
			held := holdAfterFreeing(t, made)
			switch {
			case tt.load && held:
				t.Fatal("a load held the memory a collection freed")
			case !tt.load && !held:
				t.Fatalf("after freeing %d MiB: GC percent %d, limit %d; want it held (percent off, limit at what the process holds)", made>>20, percentNow(), limitNow())
			}
			loaded()
			done()
			if got := percentNow(); got != want {
				t.Fatalf("after the build: GC percent %d, want %d back", got, want)
			}
			if got := limitNow(); got != outer {
				t.Fatalf("after the build: limit %d, want %d back", got, outer)
			}
		})
	}
}

// touched returns n bytes written page by page: resident, unlike fresh
// memory no one has written.
func touched(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b
}

// holdAfterFreeing makes made bytes live (written, so resident),
// collects, drops them and collects again, and reports whether the pacing
// then holds them: the percent off and the limit at least what the
// process holds, above what the live heap and the headroom would allow.
// It tries a few times, as the runtime's scavenger may give the freed
// memory back before the pacing reads it.
func holdAfterFreeing(t *testing.T, made int) bool {
	t.Helper()
	for range 5 {
		for range made >> 20 {
			keep = append(keep, touched(1<<20))
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		keep = nil
		runtime.GC()
		for range 50 {
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			h := holding
			mu.Unlock()
			if h {
				_, _, held := readMemory()
				held = min(held, residentAnon())
				if percentNow() >= 0 || limitNow() < int64(held)-int64(made)/4 {
					t.Fatalf("holding, but GC percent %d, limit %d, held %d", percentNow(), limitNow(), held)
				}
				return true
			}
		}
	}
	return false
}

// TestBuildDoesNotHoldUntouched: heap the runtime has not given back but
// no one wrote (a reservation, hugemem.AdviseHeap) is not resident, and
// a build does not hold it: holding it would let the heap grow that far
// before a collection. It runs in a process of its own: the runtime
// clears, and so writes, a large allocation placed where the heap has
// been before, so only a fresh heap (as AdviseHeap has, at start) gives
// a reservation that is surely unwritten.
func TestBuildDoesNotHoldUntouched(t *testing.T) {
	if os.Getenv(untouchedChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuildDoesNotHoldUntouched$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), untouchedChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestBuildDoesNotHoldUntouched") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	defer debug.SetGCPercent(percentNow())
	defer debug.SetMemoryLimit(limitNow())
	withGOGC(t, "")
	debug.SetGCPercent(defaultPercent)
	debug.SetMemoryLimit(1 << 42)
	debug.FreeOSMemory() // what earlier tests wrote and freed is given back
	done := BuildingWithin(16 << 20)
	defer done()
	const size = 512 << 20
	reserved := make([]byte, size) // fresh from the system: not written
	runtime.GC()
	runtime.KeepAlive(reserved)
	reserved = nil
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		// The process may hold a little it wrote (the race detector's
		// memory, say), never the reservation.
		if l := limitNow(); percentNow() < 0 && l >= size {
			t.Fatalf("a build held an untouched reservation: GC percent %d, limit %d", percentNow(), l)
		}
	}
	done()
}

// TestHoldingDoesNotGrow: a build that holds what a collection freed and
// then makes garbage again and again, many times what it holds, is held
// to that: collections come when the heap fills it, and the process
// never holds much more than it did when the hold began.
func TestHoldingDoesNotGrow(t *testing.T) {
	defer debug.SetGCPercent(percentNow())
	defer debug.SetMemoryLimit(limitNow())
	withGOGC(t, "")
	debug.SetGCPercent(defaultPercent)
	debug.SetMemoryLimit(1 << 42)
	const least, made = 16 << 20, 256 << 20
	done := BuildingWithin(least)
	defer done()
	if !holdAfterFreeing(t, made) {
		t.Fatalf("after freeing %d MiB: GC percent %d, limit %d; want it held", made>>20, percentNow(), limitNow())
	}
	_, _, start := readMemory()
	peak := start
	for range 4 * made >> 20 {
		garbage = touched(1 << 20) // the last piece becomes garbage
		_, _, held := readMemory()
		peak = max(peak, held)
	}
	// A collection may finish a little past the limit it began under.
	if peak > start+made/8 {
		t.Fatalf("holding %d MiB, the process came to hold %d MiB making garbage", start>>20, peak>>20)
	}
	done()
}

var garbage []byte // what TestHoldingDoesNotGrow makes and drops
