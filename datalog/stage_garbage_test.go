// This file tests what a staged add (Clone, AddFact, EvalFrom) leaves as
// garbage: its bytes must not grow with the program, so a server's
// collector works about as often over a big world as over a small one
// (issue 13, goal 3). Both shapes a server makes are measured: every add
// branching from one evaluated base, and a chain of adds each on the last.

package datalog

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var stageFacts = flag.String("stagefacts", "100000,1000000", "the program sizes of BenchmarkStagedAddBytes, comma-separated")

// sizedProgram is bigProgram's shape (bigRules over ten keys) with facts
// facts over facts/50 people.
func sizedProgram(tb testing.TB, facts int) *Program {
	p := NewProgram()
	people := facts / 50
	for i := range people {
		must(tb, p.AddFact("person", []string{fmt.Sprintf("p%d", i)}, VarPoly("proposed")))
	}
	keys := []string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}
	for i := people; i < facts; i++ {
		key := keys[i%len(keys)]
		value := fmt.Sprintf("v%d", i%97)
		if key == "mentor" || key == "liege" || key == "kin" {
			value = fmt.Sprintf("p%d", (i*7)%people)
		}
		sup := VarPoly("proposed")
		if i%3 == 0 {
			sup = VarPoly(fmt.Sprintf("d:canon-%d", i%5))
		}
		must(tb, p.AddFact(key, []string{fmt.Sprintf("p%d", i%people), value}, sup))
	}
	for _, r := range bigRules {
		must(tb, p.AddRule(parseRule(r[0], r[1], VarPoly("d:canon-0"))))
	}
	return p
}

// stagedFact is the i-th fact a staging test adds: a title (plain rules),
// a mentor edge (the recursive lineage) or an oath (under negations).
func stagedFact(i, people int) (string, []string) {
	switch i % 3 {
	case 0:
		return "title", []string{"p1", fmt.Sprintf("new-%d", i)}
	case 1:
		return "mentor", []string{fmt.Sprintf("p%d", (i*13+5)%people), fmt.Sprintf("p%d", (i*7+3)%people)}
	}
	return "oath", []string{fmt.Sprintf("p%d", (i*11)%people), "v1"}
}

// stageBytes returns the bytes allocated per staged add over n adds on
// the evaluated p (m), branching from it or chained, the least of three
// runs so that other goroutines' allocations do not count.
func stageBytes(tb testing.TB, p *Program, m *Model, people, n int, chain bool) float64 {
	best := uint64(1 << 62)
	for run := range 3 {
		bp, bm := p, m
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			q := bp.Clone()
			pred, args := stagedFact(run*n+i, people)
			must(tb, q.AddFact(pred, args, VarPoly("proposed")))
			qm, err := q.EvalFrom(bm)
			must(tb, err)
			if chain {
				bp, bm = q, qm
			}
		}
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return float64(best) / float64(n)
}

// TestStagedAddGarbage: a staged add over 10 times the facts allocates
// about as much (the trie paths deepen by a level at most), and under
// stageBound bytes either way.
func TestStagedAddGarbage(t *testing.T) {
	const small, large, adds = 20_000, 200_000, 30
	const stageBound = 40 << 10
	type size struct {
		p      *Program
		m      *Model
		people int
	}
	sizes := map[int]size{}
	for _, n := range []int{small, large} {
		p := sizedProgram(t, n)
		sizes[n] = size{p, evalOK(t, p), n / 50}
	}
	for _, chain := range []bool{false, true} {
		name := "from the base"
		if chain {
			name = "chained"
		}
		t.Run(name, func(t *testing.T) {
			var got [2]float64
			for k, n := range []int{small, large} {
				s := sizes[n]
				got[k] = stageBytes(t, s.p, s.m, s.people, adds, chain)
				if got[k] > stageBound {
					t.Errorf("%d facts: %.0f bytes a staged add, over %d", n, got[k], stageBound)
				}
			}
			if got[1] > 1.35*got[0]+1024 {
				t.Errorf("%.0f bytes a staged add at %d facts, %.0f at %d: grows with the program", got[0], small, got[1], large)
			}
			t.Logf("bytes a staged add: %.0f at %d facts, %.0f at %d", got[0], small, got[1], large)
		})
	}
}

// BenchmarkStagedAddBytes reports the bytes per staged add at 100k and 1M
// facts, or the sizes -stagefacts lists (-run '^$' -bench StagedAddBytes;
// the 1M program takes a while).
func BenchmarkStagedAddBytes(b *testing.B) {
	for _, f := range strings.Split(*stageFacts, ",") {
		n, err := strconv.Atoi(f)
		must(b, err)
		p := sizedProgram(b, n)
		m := evalOK(b, p)
		for _, chain := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/chain=%v", n, chain), func(b *testing.B) {
				var v float64
				for b.Loop() {
					v = stageBytes(b, p, m, n/50, 200, chain)
				}
				b.ReportMetric(v, "B/add")
			})
		}
	}
}

// TestDependentsReference: Dependents (marking passes) gives what a
// breadth-first walk of the readers gives, for every predicate of the
// big program's rules, alone and in pairs.
func TestDependentsReference(t *testing.T) {
	p := sizedProgram(t, 2000)
	users := map[string][]string{}
	var preds []string
	for _, r := range bigRules {
		rule := parseRule(r[0], r[1], One())
		for _, l := range rule.Body {
			users[l.Atom.Pred] = append(users[l.Atom.Pred], rule.Head.Pred)
			preds = append(preds, l.Atom.Pred)
		}
		preds = append(preds, rule.Head.Pred)
	}
	slices.Sort(preds)
	preds = slices.Compact(preds)
	ref := func(start ...string) []string {
		seen := map[string]bool{}
		queue := slices.Clone(start)
		for _, s := range start {
			seen[s] = true
		}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, u := range users[v] {
				if !seen[u] {
					seen[u] = true
					queue = append(queue, u)
				}
			}
		}
		out := []string{}
		for s := range seen {
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	for i, a := range preds {
		for _, start := range [][]string{{a}, {a, preds[(i*7+3)%len(preds)]}} {
			if got, want := p.Dependents(start...), ref(start...); !slices.Equal(got, want) {
				t.Errorf("Dependents(%v) = %v, want %v", start, got, want)
			}
		}
	}
}
