// This file checks that a model is safe for concurrent reads while clones
// of its program evaluate (sharing its relations) — run under -race.

package datalog

import (
	"fmt"
	"sync"
	"testing"
)

func TestConcurrentReadsAndEvals(t *testing.T) {
	p := ladder(t, 7, Bounds{})
	must(t, p.AddRule(parseRule("far", "far(X) :- path(v0, X), not path(X, v7)", One())))
	m := evalOK(t, p)
	v := MapValuation{"l0a": False}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				_ = m.Query(parseAtom("path(v0, X)"), v)
				_ = m.Query(parseAtom(fmt.Sprintf("path(X, v%d)", i%8)), v)
				_ = m.Why("path", []string{"v0", "v7"}, v)
				_ = m.Support("path", "v0", "v7").Eval(v)
				_ = m.Mentions("l1a")
				_ = m.Affected("r2b")
				g := m.Grader(v)
				for _, f := range m.Facts("far") {
					g.GradeFact(f)
				}
				_ = g.Update(MapValuation{}, "l0a").Grade("path", "v0", "v7")
			}
			_ = w
		}()
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := p.Clone()
			must(t, c.AddFact("extra", []string{fmt.Sprint(w)}, VarPoly("z")))
			must(t, c.AddRule(parseRule("uses", "uses(X, Y) :- extra(X), path(v1, Y)", One())))
			mc, err := c.Eval()
			if err != nil {
				t.Error(err)
				return
			}
			if mc.Stats().Reused == 0 {
				t.Error("the clone reused no stratum")
			}
			_ = mc.Query(parseAtom("uses(X, v3)"), v)
		}()
	}
	wg.Wait()
}

// TestConcurrentEvalFrom derives models from one base in several
// goroutines at once — additions and removals, maintained strata and
// re-evaluated ones — while others read the base; every derived model must
// equal a fresh evaluation and the base must not change.
func TestConcurrentEvalFrom(t *testing.T) {
	p := lineageProgram(t)
	base := evalOK(t, p)
	want := fullDump(base)
	v := MapValuation{"d:0": True, "d:1": Unknown}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				q := p.Clone()
				must(t, q.AddFact("mentor", []string{"c", fmt.Sprintf("n%d", w)}, VarPoly("d:1")))
				must(t, q.AddFact("home", []string{fmt.Sprintf("n%d", w), "h"}, One()))
				if i%2 == 1 {
					q.RemoveFact("mentor", []string{"a", "b"})
					q.RemoveFact("oath", []string{"a", "k"})
				}
				m, err := q.EvalFrom(base)
				if err != nil {
					t.Error(err)
					return
				}
				fresh := q.Clone()
				fresh.last = nil
				fm, err := fresh.Eval()
				if err != nil || fullDump(m) != fullDump(fm) {
					t.Errorf("worker %d step %d: incremental and fresh differ (%v)", w, i, err)
					return
				}
				_ = m.Query(parseAtom("court(X, Y)"), v)
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_ = base.Query(parseAtom("lineage(a, X)"), v)
				_ = base.Why("court", []string{"a", "h2"}, v)
				g := base.Grader(v)
				for _, f := range base.Facts("forsworn") {
					g.GradeFact(f)
				}
			}
		}()
	}
	wg.Wait()
	if got := fullDump(base); got != want {
		t.Fatalf("the base changed:\n%s\nwas\n%s", got, want)
	}
}
