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
	"runtime"
	"slices"
	"sync"
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
	done := make([]chan struct{}, n)
	for i := range n {
		s := st.strata.at(i)
		for _, pred := range s.preds {
			delete(a.changes, pred)
		}
		a.ids = ruleIDs(a.ids, s.rules)
		res[i] = &stratResult{preds: s.preds, rules: s.rules, ruleID: slices.Clone(a.ids), facts: a.factsOf(s, nil)}
		done[i] = make(chan struct{})
		if len(s.rules) == 0 {
			// Facts alone read nothing: loaded here, in order, before
			// any stratum that reads them starts.
			a.m.evalStratum(a.p, s, res[i])
			close(done[i])
		}
	}
	atOnceRuns.Add(1)
	a.m.atOnce = true
	defer func() { a.m.atOnce = false }()
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	panics := make([]any, n)
	var stop atomic.Bool
	var wg sync.WaitGroup
	lastNeg := -1 // the last stratum with negation so far
	for _, i := range st.ruled {
		s := st.strata.at(i)
		turn := -1 // the stratum with negation this one interns after
		if slices.ContainsFunc(s.rules, func(r *ruleRec) bool { return len(r.neg) > 0 }) {
			turn, lastNeg = lastNeg, i
		}
		wg.Go(func() {
			defer close(done[i])
			for _, k := range s.inputs {
				<-done[k]
			}
			if turn >= 0 {
				<-done[turn]
			}
			if stop.Load() {
				return
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			defer func() {
				if r := recover(); r != nil {
					panics[i] = r
					stop.Store(true)
				}
			}()
			a.m.evalStratum(a.p, s, res[i])
		})
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	for _, r := range res {
		a.m.strata.push(r, a.m.gen)
	}
}
