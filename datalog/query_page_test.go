package datalog

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestQueryPage: over random programs, pages of any size of any pattern
// (free, with a constant, with a repeated variable) read in turn give
// Query's answers in its order, with its total; and matchQuery agrees
// with bindQuery on every atom.
func TestQueryPage(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 5))
		np := genProgram(r, incConfig)
		p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.Eval()
		if err != nil {
			continue // unstratifiable
		}
		v := randomValuation(r, incConfig.vars)
		for _, gp := range genPreds(incConfig) {
			for _, q := range queryPatterns(gp) {
				all := m.Query(q, v)
				for _, size := range []int{1, 3, 7} {
					var got []Answer
					for from := 0; ; from += size {
						page, total := m.QueryPage(q, v, from, size)
						if total != len(all) {
							t.Fatalf("seed %d %v: total %d, want %d", seed, q, total, len(all))
						}
						got = append(got, page...)
						if len(page) < size {
							break
						}
					}
					if g, w := fmt.Sprint(got), fmt.Sprint(all); g != w {
						t.Fatalf("seed %d %v, pages of %d:\n%s\nwant\n%s", seed, q, size, g, w)
					}
				}
				for _, pred := range m.Preds() {
					for _, f := range m.Facts(pred) {
						if len(f.Args) != len(q.Args) {
							continue
						}
						_, ok := bindQuery(q, f.Args)
						if matchQuery(q, f.Args) != ok {
							t.Fatalf("%v against %v: matchQuery %v, bindQuery %v", q, f.Args, !ok, ok)
						}
					}
				}
			}
		}
	}
}

// queryPatterns are the patterns asked of a predicate: every argument
// free, the first a constant, the first two one variable.
func queryPatterns(gp genPred) []Atom {
	free := Atom{Pred: gp.name}
	for i := range gp.arity {
		free.Args = append(free.Args, Term{Var: fmt.Sprint("V", i)})
	}
	out := []Atom{free}
	if gp.arity > 0 {
		c := Atom{Pred: gp.name, Args: append([]Term{{Const: "c1"}}, free.Args[1:]...)}
		out = append(out, c)
	}
	if gp.arity > 1 {
		rep := Atom{Pred: gp.name, Args: append([]Term{{Var: "X"}, {Var: "X"}}, free.Args[2:]...)}
		out = append(out, rep)
	}
	return out
}

// TestQueryPageKeepsOrder: a large query's order is kept with the model
// for its next pages, a few patterns at a time, and pages read from it
// are Query's.
func TestQueryPageKeepsOrder(t *testing.T) {
	p := NewProgram()
	const n = 3 * keptOrderMin
	for i := range n {
		must(t, p.AddFact("e", []string{fmt.Sprint("a", (i*7919)%n), fmt.Sprint("b", i%3)}, One()))
	}
	m := evalOK(t, p)
	v := MapValuation{}
	for k := range keptOrders + 1 {
		q := Atom{Pred: "e", Args: []Term{{Var: fmt.Sprint("X", k)}, {Var: "Y"}}}
		all := m.Query(q, v)
		if len(all) != n {
			t.Fatalf("%d answers, want %d", len(all), n)
		}
		for _, from := range []int{0, 17, n - 5} {
			page, total := m.QueryPage(q, v, from, 10)
			if total != n || fmt.Sprint(page) != fmt.Sprint(all[from:min(from+10, n)]) {
				t.Fatalf("pattern %d from %d: %v (total %d), want %v", k, from, page, total, all[from:min(from+10, n)])
			}
		}
		if got := len(m.orders.kept); got != min(k+1, keptOrders) {
			t.Fatalf("after %d patterns: %d orders kept", k+1, got)
		}
	}
	if m.orders.kept[0].key == patternKey(Atom{Pred: "e", Args: []Term{{Var: "X0"}, {Var: "Y"}}}) {
		t.Error("the oldest order was not the one let go")
	}
	// Readers of one model page at once (go test -race).
	var wg sync.WaitGroup
	for k := range 2 * keptOrders {
		wg.Go(func() {
			q := Atom{Pred: "e", Args: []Term{{Var: fmt.Sprint("Z", k%3)}, {Var: "Y"}}}
			if _, total := m.QueryPage(q, v, k, 10); total != n {
				t.Errorf("concurrent page: total %d, want %d", total, n)
			}
		})
	}
	wg.Wait()
}

// TestQueryPageSelects: a page near the start of a large query is
// selected, not sorted, and keeps the start of the order; its answers and
// total are those of the sorted query, for a free pattern, a constant and
// a repeated variable, and for pages of any size from any place up to
// the selection's bound, within the kept start and past it. A page past
// the bound sorts, and keeps the whole order in the start's place.
func TestQueryPageSelects(t *testing.T) {
	const n = 8 * keptOrderMin
	facts := selectsFacts(n)
	model := func() *Model {
		p := NewProgram()
		for _, f := range facts {
			must(t, p.AddFact("e", f, One()))
		}
		return evalOK(t, p)
	}
	v := MapValuation{}
	patterns := []Atom{
		{Pred: "e", Args: []Term{{Var: "X"}, {Var: "Y"}}},
		{Pred: "e", Args: []Term{{Const: "c1"}, {Var: "Y"}}},
		{Pred: "e", Args: []Term{{Var: "X"}, {Var: "X"}}},
	}
	sorted, paged := model(), model()
	for _, q := range patterns {
		all := sorted.Query(q, v)
		if len(all) < 16 {
			t.Fatalf("%v: %d answers, too few to page", q, len(all))
		}
		for _, size := range []int{0, 1, 10, 64} {
			for _, from := range []int{0, 1, 5, 63, 200} {
				page, total := paged.QueryPage(q, v, from, size)
				want := all[min(from, len(all)):min(from+size, len(all))]
				if total != len(all) || fmt.Sprint(page) != fmt.Sprint(want) {
					t.Fatalf("%v from %d, %d: %v (total %d), want %v (total %d)", q, from, size, page, total, want, len(all))
				}
			}
		}
	}
	checkKeptStarts(t, sorted, paged, patterns, v)
	q := patterns[0]
	all := sorted.Query(q, v)
	page, _ := paged.QueryPage(q, v, n/2, 10)
	if fmt.Sprint(page) != fmt.Sprint(all[n/2:n/2+10]) {
		t.Fatalf("a page past the bound: %v, want %v", page, all[n/2:n/2+10])
	}
	if k, _ := paged.orders.find(patternKey(q)); k.start || len(k.rows) != len(all) {
		t.Fatalf("a page past the bound kept a start (%v) of %d rows, want the whole order", k.start, len(k.rows))
	}
	page, _ = paged.QueryPage(q, v, 3, 10)
	if fmt.Sprint(page) != fmt.Sprint(all[3:13]) {
		t.Fatalf("a page from the whole order: %v, want %v", page, all[3:13])
	}
}

// selectsFacts is TestQueryPageSelects's n distinct e facts, drawn at
// random from a fixed seed: short words, many with the constant c1 first,
// many with both arguments the same.
func selectsFacts(n int) [][]string {
	r := rand.New(rand.NewPCG(21, 22))
	word := func() string {
		b := make([]byte, 1+r.IntN(4))
		for i := range b {
			b[i] = "abc"[r.IntN(3)]
		}
		return string(b)
	}
	seen := map[[2]string]bool{}
	var facts [][]string
	for len(facts) < n {
		x, y := word()+fmt.Sprint(r.IntN(n)), word()
		switch r.IntN(8) {
		case 0:
			x = "c1" // a constant with many answers
		case 1:
			y = x // rows the repeated variable matches
		}
		if !seen[[2]string{x, y}] {
			seen[[2]string{x, y}] = true
			facts = append(facts, []string{x, y})
		}
	}
	return facts
}

// checkKeptStarts checks the orders paged kept after paging patterns
// near their start, against the same queries on sorted.
func checkKeptStarts(t *testing.T, sorted, paged *Model, patterns []Atom, v MapValuation) {
	t.Helper()
	// Every order kept is the start of the sorted order, or all of it;
	// the free pattern's pages were all selected: it keeps a start of at
	// least selectedMin rows.
	for _, k := range paged.orders.kept {
		var all []Answer
		for _, q := range patterns {
			if patternKey(q) == k.key {
				all = sorted.Query(q, v)
			}
		}
		if k.total != len(all) || len(k.rows) > len(all) || !k.start && len(k.rows) != len(all) {
			t.Fatalf("%q kept %d rows (start %v) of %d, want of %d", k.key, len(k.rows), k.start, k.total, len(all))
		}
	}
	if k, ok := paged.orders.find(patternKey(patterns[0])); !ok || !k.start || len(k.rows) < selectedMin {
		t.Fatalf("the free pattern kept %v a start %v of %d rows", ok, k.start, len(k.rows))
	}
}
