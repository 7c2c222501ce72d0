// This file runs the plans of one semi-naive round on every core the
// process is given (DL-0490). A round reads only the rows visible at its
// start (lim) and the previous round's delta, and writes only rows beyond
// lim and, with provenance, the round's pending contributions; so the
// matches of a round are a function of its start, whoever enumerates them.
// The plans' first steps (the delta, or a scan) are cut into tasks of
// consecutive rows; workers run the tasks, each into its own output (head
// tuples, or with provenance a record of what emit would do), touching no
// shared state; then one goroutine merges the outputs in task order, which
// is the order the sequential evaluation emits in. Rows, row numbers,
// supports, interned literals and hashes come out the same, byte for byte,
// at any GOMAXPROCS. Tasks run in batches, merged one after another, so
// that the buffered output stays a batch's, not a round's.
//
// The one shared effect a worker has is the budget (budget.go), counted
// atomically; a worker that stops on it hands its panic to the caller.

package datalog

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"
)

const (
	// parMinRows is how many first-step rows a round must read before it
	// is split among workers: below it the goroutines cost more than they
	// save, and a small program runs as it always did.
	parMinRows = 4096
	// parChunk is the first-step rows of one task.
	parChunk = 1024
	// parBatch is the tasks of one batch, per worker.
	parBatch = 16
	// parSeenMin is the least size of a task's set of head tuples.
	parSeenMin = 256
)

// parForceChunk is a test hook: when positive, every round is split into
// tasks of that many rows, whatever its size and GOMAXPROCS, so that the
// parallel path runs on small programs too; when negative, every round
// runs sequentially.
var parForceChunk atomic.Int32

// parMerged counts the batches merged, without and with provenance, the
// parallel hash placements (parinsert.go), those stopped for the table to
// grow, the growths of tables of many segments, the placements made as
// the new tuples are found (insertFlat) and those of them stopped for the
// table to grow, and the rows those placements kept (their stops): the
// tests' evidence that each path ran, and where it stopped.
var parMerged struct{ sets, poly, placed, grown, regrown, flat, flatGrown, flatKept atomic.Int64 }

// ParallelBatches returns how many batches of parallel tasks the
// evaluations of this process have merged: a test's evidence, from
// outside the package, that a parallel path ran.
func ParallelBatches() int64 { return parMerged.sets.Load() + parMerged.poly.Load() }

// parOut is the output of one task.
type parOut struct {
	ci   int      // the head's index among the stratum's relations
	tup  []uint32 // without provenance: head tuples, end to end
	tags []uint32 // their hash tags (hashVals>>32)
	ev   []uint32 // with provenance: events, see emit and intern
}

// Provenance events: a negated literal interned, or a match emitted.
const (
	evIntern uint32 = iota // pred, row
	evEmit                 // delta index, head tuple, body rows, negated rows (^0: absent)
)

func (o *parOut) reset(ci int) {
	o.ci, o.tup, o.tags, o.ev = ci, o.tup[:0], o.tags[:0], o.ev[:0]
}

// intern records that the sequential evaluation would intern "not
// pred(row)" here.
func (o *parOut) intern(pred, row uint32) {
	o.ev = append(o.ev, evIntern, pred, row)
}

// emit records the current match of worker e, whose head tuple is head.
func (o *parOut) emit(e *evaluator, head []uint32) {
	if !e.poly {
		h := hashVals(head)
		if e.repeat(o, head, h) {
			return
		}
		o.tup = append(o.tup, head...)
		o.tags = append(o.tags, uint32(h>>32))
		return
	}
	o.ev = append(o.ev, evEmit, uint32(e.dk))
	o.ev = append(o.ev, head...)
	o.ev = append(o.ev, e.rows...)
	for _, r := range e.negRow {
		o.ev = append(o.ev, uint32(r)) // -1 becomes ^0
	}
}

// repeat reports whether head, whose hash is h, is among the head
// tuples of worker e's task (output o) already, and if not enters it in
// the worker's set as o's next one. Without provenance a tuple derived
// again is a no-op where it is inserted, after the first in task order,
// so dropping it here changes nothing merged; and where a round derives
// most tuples twice (a grid's paths come from the left and from above,
// both in one task), it halves what the merge copies and looks up in the
// relation's hash, whose cache misses are most of a large round's time.
// The set is the worker's, not the task's, so that it stays in the cache
// of the core that runs the worker.
func (e *evaluator) repeat(o *parOut, head []uint32, h uint64) bool {
	n := len(o.tags)
	if 2*(n+1) > len(e.seen) {
		e.regrowSeen(o, len(head))
	}
	a := len(head)
	tag := uint32(h >> 32)
	mask := uint32(len(e.seen) - 1)
	for s := uint32(h) & mask; ; s = (s + 1) & mask {
		j := e.seen[s]
		if j == 0 {
			e.seen[s] = uint32(n + 1)
			return false
		}
		j--
		if o.tags[j] == tag && equalVals(o.tup[int(j)*a:int(j+1)*a], head) {
			return true
		}
	}
}

// regrowSeen doubles worker e's set (to at least parSeenMin) and enters
// o's tuples again. Past its length the set's array is all zero
// (resetSeen clears what a task used).
func (e *evaluator) regrowSeen(o *parOut, a int) {
	size := max(parSeenMin, 2*len(e.seen))
	clear(e.seen)
	if cap(e.seen) < size {
		e.seen = make([]uint32, size)
	}
	e.seen = e.seen[:size]
	mask := uint32(size - 1)
	for j := range o.tags {
		s := uint32(hashVals(o.tup[j*a:(j+1)*a])) & mask
		for e.seen[s] != 0 {
			s = (s + 1) & mask
		}
		e.seen[s] = uint32(j + 1)
	}
}

// resetSeen empties worker e's set for its next task. It clears all of
// it, so that a task stopped midway (a budget's stop) leaves nothing
// behind, and keeps the size the last task grew it to, unless that is far
// past what the task needed (seenN): the clearing costs the order of the
// last task's output.
func (e *evaluator) resetSeen() {
	clear(e.seen)
	if want := max(parSeenMin, 2<<bits.Len(uint(e.seenN))); len(e.seen) > 4*want {
		e.seen = e.seen[:want]
	}
}

// parTask is a run of plan pl over rows [lo, hi) of its first step (hi 0:
// all of it).
type parTask struct {
	pl     *plan
	lo, hi int
	out    parOut
	// Tasks lie side by side and run on different cores, each appending
	// to its output (writing its slice headers) at every match: the pad
	// keeps one task's headers off the cache lines of the next.
	_ [64]byte
}

// parState is an evaluator's parallel machinery, kept between rounds.
type parState struct {
	workers []*evaluator
	tasks   []parTask
	ins     *parIns
	last    *plan // the plan of the last task merged
	skip    bool  // its tasks are not merged
}

// execAll runs plans pls, in parallel when the round is large enough (or
// the test hook says so) and the evaluator is in a mode that merges. On
// one core a large round without provenance runs as tasks too, on one
// worker: its batched merge does the hash work in groups whose cache
// misses overlap, less work than inserting each tuple as it is derived
// (DL-0492); with provenance, recording and replaying would only add.
func (e *evaluator) execAll(pls []*plan) {
	workers := runtime.GOMAXPROCS(0)
	force := int(parForceChunk.Load())
	if force < 0 || workers < 2 && force == 0 && e.poly || !e.parallelMode() {
		e.execSeq(pls)
		return
	}
	chunk, rows := parChunk, 0
	if force > 0 {
		chunk = force
	}
	for _, pl := range pls {
		rows += e.firstRows(pl)
	}
	if rows < parMinRows && force == 0 {
		e.execSeq(pls)
		return
	}
	e.execParallel(pls, max(workers, 1), chunk)
}

// execSeq runs plans pls one after another; exact evaluation starts none
// once it has failed.
func (e *evaluator) execSeq(pls []*plan) {
	for _, pl := range pls {
		if e.xs == nil || !e.xs.failed {
			e.exec(pl)
		}
	}
}

// parallelMode reports whether the evaluator's emits can be merged after
// the fact: round-based or exact evaluation, not collecting, recomputing
// or grounding.
func (e *evaluator) parallelMode() bool {
	return e.coll == nil && e.racc == nil && e.skip == nil && e.ground == nil && e.out == nil
}

// firstRows returns how many rows the first step of pl reads, 0 when it
// is not one that splits (an index lookup or a probe on constants).
func (e *evaluator) firstRows(pl *plan) int {
	if len(pl.steps) == 0 {
		return 0
	}
	st := &pl.steps[0]
	switch st.mode {
	case modeDelta:
		return len(e.delta[st.cur].rows)
	case modeScan:
		return int(e.limit(st))
	}
	return 0
}

// execParallel cuts the plans into tasks and runs them in batches.
func (e *evaluator) execParallel(pls []*plan, workers, chunk int) {
	if e.par == nil {
		e.par = &parState{}
	}
	ps := e.par
	for len(ps.workers) < workers {
		ps.workers = append(ps.workers, &evaluator{})
	}
	for _, w := range ps.workers[:workers] {
		*w = evaluator{m: e.m, ar: e.ar, bounds: e.bounds, cur: e.cur, curIdx: e.curIdx, lim: e.lim, delta: e.delta,
			poly: e.poly, g: e.g, names: e.names, kbuf: w.kbuf, slots: w.slots, rows: w.rows,
			negLit: w.negLit, negRow: w.negRow, hbuf: w.hbuf, seen: w.seen, seenN: w.seenN}
	}
	batch := parBatch * workers
	n := 0
	ps.last = nil
	for _, pl := range pls {
		rows := e.firstRows(pl)
		for lo := 0; lo < rows || lo == 0; lo += chunk {
			if n == len(ps.tasks) {
				ps.tasks = append(ps.tasks, parTask{})
			}
			t := &ps.tasks[n]
			t.pl, t.lo, t.hi = pl, lo, min(lo+chunk, rows)
			t.out.reset(e.curIdx[pl.rule.head.pred])
			n++
			if n == batch {
				e.runBatch(ps.tasks[:n], ps.workers[:workers])
				n = 0
			}
			if rows == 0 {
				break
			}
		}
	}
	if n > 0 {
		e.runBatch(ps.tasks[:n], ps.workers[:workers])
	}
}

// runBatch runs tasks on the workers, then merges their outputs in order.
func (e *evaluator) runBatch(tasks []parTask, workers []*evaluator) {
	parDo(len(tasks), workers, func(_ int, w *evaluator, i int) {
		t := &tasks[i]
		w.resetSeen()
		w.out, w.lo, w.hi = &t.out, t.lo, t.hi
		w.exec(t.pl)
		w.out, w.seenN = nil, len(t.out.tags)
	})
	if e.poly {
		parMerged.poly.Add(1)
		ps := e.par
		for i := range tasks {
			t := &tasks[i]
			if t.pl != ps.last {
				// Exact evaluation starts no plan once it has failed
				// (runExact); a plan's tasks may span batches.
				ps.last, ps.skip = t.pl, e.xs != nil && e.xs.failed
			}
			if !ps.skip {
				e.replay(t)
			}
		}
		return
	}
	parMerged.sets.Add(1)
	e.mergeSets(tasks, workers)
}

// parDo runs f(k, w, i) for i in [0, n), each on one of the workers (w,
// the k-th), and returns when all are done. A panic in a worker (a budget stop, or a
// bug) stops the others at their next task and is raised again here. The
// calling goroutine is the first worker: it is running already, where a
// goroutine of its own would wait to be scheduled at each of the many
// calls a large evaluation makes.
func parDo(n int, workers []*evaluator, f func(k int, w *evaluator, i int)) {
	var next atomic.Int64
	var stop atomic.Bool
	var left atomic.Int64 // workers not done
	done := make(chan struct{})
	panics := make([]any, len(workers))
	run := func(k int, w *evaluator) {
		defer func() {
			if left.Add(-1) == 0 {
				close(done)
			}
		}()
		defer func() {
			if r := recover(); r != nil {
				panics[k] = r
				stop.Store(true)
			}
		}()
		for !stop.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				break
			}
			f(k, w, i)
		}
		w.look() // settle the derivations counted since the last look
	}
	ws := workers[:min(len(workers), n)]
	left.Store(int64(len(ws)))
	for k, w := range ws[min(1, len(ws)):] {
		dispatch(func() { run(k+1, w) })
	}
	if len(ws) > 0 {
		run(0, ws[0])
	}
	// The others finish their last tasks: waiting parked would add a
	// wake-up to every call (DL-0531), so wait spinning, a while.
	for deadline := time.Now().Add(helperWait); left.Load() > 0; {
		if parSpawn.Load() || time.Now().After(deadline) {
			<-done
			break
		}
		runtime.Gosched()
	}
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// replay merges a provenance task's events: what emit and negsOK would
// have done, in the same order.
func (e *evaluator) replay(t *parTask) {
	pl := t.pl
	r := pl.rule
	e.pl = pl
	e.rows = growU32(e.rows, len(r.pos))
	e.negLit = growI64(e.negLit, len(r.neg))
	e.negRow = growI64(e.negRow, len(r.neg))
	arity := len(r.head.args)
	ev := t.out.ev
	for i := 0; i < len(ev); {
		if ev[i] == evIntern {
			e.negLitID(ev[i+1], ev[i+2])
			i += 3
			continue
		}
		k := int(ev[i+1])
		i += 2
		head := ev[i : i+arity]
		i += arity
		i += copy(e.rows, ev[i:i+len(r.pos)])
		for j := range r.neg {
			e.negLit[j], e.negRow[j] = -1, -1
			if row := ev[i+j]; row != ^uint32(0) {
				e.negRow[j] = int64(row)
				e.negLit[j] = int64(e.negLitID(r.neg[j].pred, row))
			}
		}
		i += len(r.neg)
		if pl.delta >= 0 {
			e.dmons = e.delta[pl.steps[0].cur].mons[k]
		}
		e.emitHead(head)
	}
}
