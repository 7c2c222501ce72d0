// This file evaluates the strata of a program from scratch several at a
// time (DL-0490). A stratum reads only the strata before it that its rules
// name (strat.inputs), so once those are done it may run beside any other
// whose inputs are done: at 10M declarations a world's thirteen ruled
// strata held one core for 9–10 s while the other idled.
//
// What the strata share is made safe or kept in order. Each stratum sets
// only its own predicates' relations and cursor entries, in tables made
// whole before they start (ptrie.ref writes no node it need not copy);
// relations of finished strata are only read (an index a reader builds is
// built under the relation's lock); the derivation budget is counted
// atomically. The one order-dependent effect is interning the negated
// literals "not p(row)", whose ids are by order of interning and are in
// the world file: the strata with negation run one after another in their
// order, as the sequential evaluation meets them. The results are pushed
// in stratum order. So the model, its supports and the snapshot's bytes
// are those of the sequential evaluation (TestStrataAtOnceMatchSequential).

package datalog

import (
	"cmp"
	"container/heap"
	"runtime"
	"slices"
	"sync/atomic"
)

// atOnceMin is the fewest facts a program must hold for its strata to be
// evaluated at once: a small program runs as it always did.
const atOnceMin = 1 << 16

// atOnceForce is a test hook: positive, the strata of every evaluation
// from scratch run at once, whatever its size and GOMAXPROCS; negative,
// never.
var atOnceForce atomic.Int32

// atOnceRuns counts the evaluations whose strata ran at once: the tests'
// evidence that the path ran.
var atOnceRuns atomic.Int64

// atOnce reports whether an evaluation from scratch of p evaluates its
// strata at once.
func atOnce(p *Program, st *stratification) bool {
	switch f := atOnceForce.Load(); {
	case f < 0:
		return false
	case f > 0:
		return len(st.ruled) > 1
	}
	if runtime.GOMAXPROCS(0) < 2 || len(st.ruled) < 2 {
		return false
	}
	n := 0
	for _, f := range p.facts.all() {
		if f != nil {
			n += f.tab.n
		}
	}
	return n >= atOnceMin
}

// strataAtOnce evaluates every stratum of st from scratch, those with
// rules on up to GOMAXPROCS goroutines, each once the strata it reads are
// done, and appends the results in stratum order. A panic of a stratum
// (a budget's stop) is raised again here, the earliest stratum's.
func (a *applier) strataAtOnce(st *stratification) {
	n := st.strata.len()
	res := make([]*stratResult, n)
	for i := range n {
		s := st.strata.at(i)
		a.ids = ruleIDs(a.ids, s.rules)
		r := a.fromScratch(s, slices.Clone(a.ids), a.factsOf(s, nil))
		res[i] = &r
		if len(s.rules) == 0 {
			// Facts alone read nothing: loaded here, in order, before
			// any stratum that reads them starts.
			a.m.evalStratum(a.p, s, res[i])
		}
	}
	atOnceRuns.Add(1)
	a.m.atOnce = true
	defer func() { a.m.atOnce = false }()
	sc := planStrata(st)
	panics := make([]any, n)
	fin := make(chan int)
	running, stopped := 0, false
	for {
		for !stopped && running < runtime.GOMAXPROCS(0) && len(sc.ready) > 0 {
			i := sc.next()
			running++
			go func() {
				defer func() {
					if r := recover(); r != nil {
						panics[i] = r
					}
					fin <- i
				}()
				a.m.evalStratum(a.p, st.strata.at(i), res[i])
			}()
		}
		if running == 0 {
			break
		}
		i := <-fin
		running--
		stopped = stopped || panics[i] != nil
		sc.done(i)
	}
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	for _, r := range res {
		a.m.strata.push(r, a.m.gen)
	}
}

// strataPlan is the order strataAtOnce starts the strata with rules in:
// a stratum is ready once every stratum with rules it waits for is done
// (those it reads, and for one with negation the one with negation
// before it), and of the ready ones the first to start is the one with
// the longest chain of strata waiting on it, recursive before not, then
// the earliest: the strata with negation, which run one after another,
// start as soon as they can, beside the rest.
type strataPlan struct {
	waits   map[int]int   // by stratum: how many it waits for that are not done
	waiters map[int][]int // by stratum: those that wait for it
	chain   map[int]int   // by stratum: the longest chain of strata waiting on it, itself counted
	rec     map[int]bool
	ready   []int // a heap: see Less
}

func planStrata(st *stratification) *strataPlan {
	sc := &strataPlan{waits: map[int]int{}, waiters: map[int][]int{}, chain: map[int]int{}, rec: map[int]bool{}}
	ruled := map[int]bool{}
	for _, i := range st.ruled {
		ruled[i] = true
	}
	lastNeg := -1
	for _, i := range st.ruled {
		s := st.strata.at(i)
		sc.rec[i] = s.recursive
		wait := func(k int) {
			if ruled[k] {
				sc.waits[i]++
				sc.waiters[k] = append(sc.waiters[k], i)
			}
		}
		for _, k := range s.inputs {
			wait(k)
		}
		if slices.ContainsFunc(s.rules, func(r *ruleRec) bool { return len(r.neg) > 0 }) {
			if lastNeg >= 0 && !slices.Contains(s.inputs, lastNeg) {
				wait(lastNeg)
			}
			lastNeg = i
		}
	}
	for _, i := range slices.Backward(st.ruled) { // a waiter comes after what it waits for
		c := 0
		for _, w := range sc.waiters[i] {
			c = max(c, sc.chain[w])
		}
		sc.chain[i] = c + 1
	}
	for _, i := range st.ruled {
		if sc.waits[i] == 0 {
			sc.ready = append(sc.ready, i)
		}
	}
	heap.Init(sc)
	return sc
}

// before reports whether stratum i starts before stratum j.
func (sc *strataPlan) before(i, j int) bool {
	return cmp.Or(cmp.Compare(sc.chain[i], sc.chain[j]), cmp.Compare(btoi(sc.rec[i]), btoi(sc.rec[j])), cmp.Compare(j, i)) > 0
}

// The ready strata are a heap (container/heap) by before: a program of
// thousands of strata ready at once picks each in log time.
func (sc *strataPlan) Len() int           { return len(sc.ready) }
func (sc *strataPlan) Less(a, b int) bool { return sc.before(sc.ready[a], sc.ready[b]) }
func (sc *strataPlan) Swap(a, b int)      { sc.ready[a], sc.ready[b] = sc.ready[b], sc.ready[a] }
func (sc *strataPlan) Push(x any)         { sc.ready = append(sc.ready, x.(int)) }
func (sc *strataPlan) Pop() any {
	i := sc.ready[len(sc.ready)-1]
	sc.ready = sc.ready[:len(sc.ready)-1]
	return i
}

// next takes the ready stratum to start first.
func (sc *strataPlan) next() int { return heap.Pop(sc).(int) }

// done notes stratum i done, making ready those that waited for it alone.
func (sc *strataPlan) done(i int) {
	for _, w := range sc.waiters[i] {
		if sc.waits[w]--; sc.waits[w] == 0 {
			heap.Push(sc, w)
		}
	}
}
