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
