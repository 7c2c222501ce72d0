package datalog

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// TestAddFactsMatchesAddFact: facts added through a resolved predicate, in
// batches of one fact or of many, give the model AddFact gives, and
// AddFacts refuses what AddFact does.
func TestAddFactsMatchesAddFact(t *testing.T) {
	rules := []trule{
		{"r", "r(X, Y) :- e(X, Y), not q(Y)", VarPoly("h")},
		{"s", "s(X) :- r(X, Y), w(X, Y, a, b)", One()},
	}
	plain, viaAt, batched := addFactsThreeWays(t, addFactsCorpus()) // viaAt: one fact a batch
	for _, p := range []*Program{plain, viaAt, batched} {
		for _, r := range rules {
			must(t, p.AddRule(parseRule(r.name, r.text, r.sup)))
		}
	}
	want := fullDump(evalOK(t, plain))
	if got := fullDump(evalOK(t, viaAt)); got != want {
		t.Fatalf("one-fact batches' model differs from AddFact's:\n%s\nwant\n%s", got, want)
	}
	if got := fullDump(evalOK(t, batched)); got != want {
		t.Fatalf("AddFacts's model differs from AddFact's:\n%s\nwant\n%s", got, want)
	}
	if fmt.Sprint(batched.consts.snapshot().strings()) != fmt.Sprint(plain.consts.snapshot().strings()) {
		t.Fatal("AddFacts interned the constants in another order")
	}

	e, err := viaAt.FactPred("e", 2)
	must(t, err)
	other := NewProgram()
	must(t, other.AddFact("x", []string{"a", "b"}, One())) // id 0 there, arity 2, as e here
	for _, tt := range factBatchRefusals(viaAt, other, e) {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.add()
			var de *Error
			switch {
			case tt.code == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tt.code != "" && (!errors.As(err, &de) || de.Code != tt.code):
				t.Fatalf("got %v, want code %s", err, tt.code)
			}
		})
	}
	// The fact resolved on another program went to that program's own e,
	// not to the predicate that has e's id there.
	if a, ok := other.FactArity("e"); !ok || a != 2 {
		t.Fatalf("e on the other program: arity %d, %v", a, ok)
	}
	m := evalOK(t, other)
	if got := m.Support("x", "g", "h"); !got.IsZero() {
		t.Fatalf("x(g, h) holds with %v: the fact went to the wrong predicate", got)
	}
	if got := m.Support("e", "g", "h"); !got.Equal(One()) {
		t.Fatalf("e(g, h) holds with %v, want One", got)
	}
}

// batchFact is one fact to add by AddFact, a FactBatch or a FactPipe.
type batchFact struct {
	pred string
	args []string
	sup  Poly
}

// addFactsCorpus is TestAddFactsMatchesAddFact's facts: e edges among 40
// nodes, some q and w facts among them.
func addFactsCorpus() []batchFact {
	var facts []batchFact
	for i := range 300 {
		x, y := "n"+strconv.Itoa(i%40), "n"+strconv.Itoa((i*7)%40)
		facts = append(facts, batchFact{"e", []string{x, y}, VarPoly("v" + strconv.Itoa(i%5))})
		if i%3 == 0 {
			facts = append(facts, batchFact{"q", []string{y}, VarPoly("q")})
		}
		if i%4 == 0 {
			facts = append(facts, batchFact{"w", []string{x, y, "a", "b"}, One()})
		}
	}
	return facts
}

// addFactsThreeWays adds facts to three new programs: by AddFact, by
// AddFacts a fact at a time, and by AddFacts in batches of many sizes.
func addFactsThreeWays(t *testing.T, facts []batchFact) (plain, viaAt, batched *Program) {
	t.Helper()
	plain, viaAt, batched = NewProgram(), NewProgram(), NewProgram()
	resolved, resolvedB := map[string]FactPred{}, map[string]FactPred{}
	var batch FactBatch
	for i, f := range facts {
		must(t, plain.AddFact(f.pred, f.args, f.sup))
		fp, ok := resolved[f.pred]
		if !ok {
			var err error
			fp, err = viaAt.FactPred(f.pred, len(f.args))
			must(t, err)
			resolved[f.pred] = fp
		}
		var one FactBatch
		one.Add(fp, f.args, f.sup)
		must(t, viaAt.AddFacts(&one))
		if fp, ok = resolvedB[f.pred]; !ok {
			var err error
			fp, err = batched.FactPred(f.pred, len(f.args))
			must(t, err)
			resolvedB[f.pred] = fp
		}
		batch.Add(fp, f.args, f.sup)
		if i%97 == 0 || i == len(facts)-1 { // batches of all sizes, and past internBatch
			must(t, batched.AddFacts(&batch))
		}
	}
	if batch.Len() != 0 {
		t.Fatal("AddFacts left facts in the batch")
	}
	return plain, viaAt, batched
}

// factBatchRefusal is one batch TestAddFactsMatchesAddFact adds, and the
// error code it wants ("" for none).
type factBatchRefusal struct {
	name string
	add  func() error
	code string
}

// factBatchRefusals are the additions AddFacts must refuse, or take, on
// viaAt and other, e being viaAt's resolved e.
func factBatchRefusals(viaAt, other *Program, e FactPred) []factBatchRefusal {
	return []factBatchRefusal{
		{"empty name", func() error { _, err := viaAt.FactPred("", 1); return err }, CodeInvalidTerm},
		{"other arity", func() error { _, err := viaAt.FactPred("e", 3); return err }, CodeArityMismatch},
		{"batch: resolved before a clone", func() error {
			var b FactBatch
			b.Add(e, []string{"c", "d"}, One())
			return viaAt.Clone().AddFacts(&b)
		}, ""},
		{"batch: args of another arity", func() error {
			var b FactBatch
			b.Add(e, []string{"a"}, One())
			return viaAt.AddFacts(&b)
		}, CodeArityMismatch},
		{"batch: resolved on another program", func() error {
			var b FactBatch
			b.Add(e, []string{"g", "h"}, One())
			return other.AddFacts(&b)
		}, ""},
		{"batch: zero support", func() error {
			var b FactBatch
			b.Add(e, []string{"before", "zero"}, One())
			b.Add(e, []string{"the", "zero"}, NewPoly())
			b.Add(e, []string{"after", "zero"}, One())
			err := viaAt.AddFacts(&b)
			if _, ok := viaAt.consts.lookup("after"); ok {
				return fmt.Errorf("a constant after the refused fact was interned")
			}
			if _, ok := viaAt.consts.lookup("before"); !ok {
				return fmt.Errorf("the fact before the refused one was not added")
			}
			return err
		}, CodeZeroSupport},
	}
}

// TestInternAllAgainstIntern: interning a fact's constants at once, or
// many facts' a batch at a time, gives the ids one at a time would, new and
// known names mixed, across table growths (whose tags change width), past
// the 64 names of one mask and across batches of internMany.
func TestInternAllAgainstIntern(t *testing.T) {
	for _, width := range []int{1, 2, 5, 64, 65, 130} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			one, all := newInterner(), newInterner()
			buf := make([]string, width)
			out := make([]uint32, width)
			for round := range 3000 / width {
				for i := range buf {
					// Half repeat earlier names, half are new.
					buf[i] = "c" + strconv.Itoa((round*width+i)/2)
				}
				if round%2 == 0 {
					all.internAll(buf, out)
				} else {
					all.internMany(buf, out)
				}
				for i, s := range buf {
					if want := one.intern(s); out[i] != want {
						t.Fatalf("round %d: %q is %d, want %d", round, s, out[i], want)
					}
				}
			}
			if one.n != all.n {
				t.Fatalf("%d names, want %d", all.n, one.n)
			}
			for id := range uint32(all.n) {
				if got, ok := all.lookup(all.name(id)); !ok || got != id {
					t.Fatalf("lookup of %q: %d, %v; want %d", all.name(id), got, ok, id)
				}
			}
			if _, ok := all.lookup("absent"); ok {
				t.Fatal("an absent name was found")
			}
		})
	}
}

// TestNegatedLiteralNames: a negated atom's literal is named when asked,
// as it was when interned: short and wide atoms (the two keys of the
// table), constants that need quoting, and one literal per atom however
// often it is reached.
func TestNegatedLiteralNames(t *testing.T) {
	p := NewProgram()
	must(t, p.AddFact("p", []string{"a b"}, VarPoly("x")))
	must(t, p.AddFact("p", []string{"c"}, VarPoly("x")))
	must(t, p.AddFact("q", []string{"a b"}, VarPoly("y")))
	must(t, p.AddFact("w", []string{"c", "k", "l", "m"}, VarPoly("z")))
	must(t, p.AddRule(parseRule("r", "r(X) :- p(X), not q(X)", One())))
	must(t, p.AddRule(parseRule("s", "s(X) :- p(X), not w(X, k, l, m)", One())))
	must(t, p.AddRule(parseRule("s2", "s2(X) :- s(X), not w(X, k, l, m)", One())))
	m := evalOK(t, p)
	tests := []struct {
		pred, arg, want string
	}{
		{"r", "a b", `{not q("a b"), x}`},
		{"r", "c", `{x}`},
		{"s", "c", `{not w(c, k, l, m), x}`},
		{"s2", "c", `{not w(c, k, l, m), x}`},
	}
	for _, tt := range tests {
		t.Run(tt.pred+"("+tt.arg+")", func(t *testing.T) {
			if got := m.Support(tt.pred, tt.arg).String(); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
	negs := 0
	info := p.lits.snapshot()
	for id := range uint32(info.len()) {
		if info.at(id).kind == litNeg {
			negs++
		}
	}
	if negs != 2 {
		t.Fatalf("%d negated literals, want 2 (one per atom)", negs)
	}
}

// TestFactLogRuns: the changes one generation makes form one run of the
// log, and a model still finds exactly the rows changed since it was
// evaluated, across runs.
func TestFactLogRuns(t *testing.T) {
	p := NewProgram()
	add := func(i int) { must(t, p.AddFact("f", []string{fmt.Sprint(i)}, VarPoly("v"))) }
	for i := range 100 {
		add(i)
	}
	f0 := p.fact(0)
	if f0.log == nil || f0.log.prev != nil || len(f0.log.rows) != 100 {
		t.Fatalf("100 adds in one generation: want one run of 100 rows")
	}
	evalOK(t, p) // a new generation: the run is closed
	for i := 100; i < 103; i++ {
		add(i)
	}
	f1 := p.fact(0)
	if len(f0.log.rows) != 100 || f0.log.ver != f0.version {
		t.Fatal("the run a model read was changed")
	}
	rows, ok := factDiff(f0, f1)
	if !ok || fmt.Sprint(rows) != "[100 101 102]" {
		t.Fatalf("rows changed since the model: %v, %v", rows, ok)
	}
	if f1.log.prev != f0.log || f1.log.depth != 103 {
		t.Fatalf("the new run does not follow the old one (depth %d)", f1.log.depth)
	}
	if rows, ok := factDiff(nil, f1); !ok || len(rows) != 103 {
		t.Fatalf("rows changed since the empty set: %d, %v; want all 103", len(rows), ok)
	}
}
