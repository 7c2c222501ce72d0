package datalog

import (
	"slices"
	"strconv"
	"sync"
	"testing"
)

// entryOf is the fact entry of pred(args) in p.
func entryOf(t *testing.T, p *Program, pred string, args ...string) *factEntry {
	t.Helper()
	id, ok := p.preds.lookup(pred)
	if !ok {
		t.Fatalf("no predicate %s", pred)
	}
	tuple := make([]uint32, len(args))
	for i, a := range args {
		if tuple[i], ok = p.consts.lookup(a); !ok {
			t.Fatalf("no constant %s", a)
		}
	}
	row, ok := p.fact(id).tab.find(tuple)
	if !ok {
		t.Fatalf("no fact %s%v", pred, args)
	}
	return p.fact(id).entry(row)
}

// TestUnitSupportsShared: facts given the same one-variable support share
// its public and interned polynomials and keep no slice of supports; a
// second support given to one of them is kept apart, taken back exactly,
// and a wider support is never shared.
func TestUnitSupportsShared(t *testing.T) {
	p := NewProgram()
	for _, a := range []string{"a", "b"} {
		if err := p.AddFact("p", []string{a}, VarPoly("d:x")); err != nil { // a fresh Poly each
			t.Fatal(err)
		}
	}
	wide := NewPoly([]string{"d:x", "d:y"})
	if err := p.AddFact("p", []string{"c"}, wide); err != nil {
		t.Fatal(err)
	}
	ea, eb, ec := entryOf(t, p, "p", "a"), entryOf(t, p, "p", "b"), entryOf(t, p, "p", "c")
	if ea.pub.d != eb.pub.d || &ea.sup[0] != &eb.sup[0] || ea.pubs != nil || eb.pubs != nil {
		t.Fatal("two facts of one unit support do not share it")
	}
	if ec.pub.d == ea.pub.d || !ec.pub.Equal(wide) || len(ec.given()) != 1 {
		t.Fatalf("a wider support: %v", ec.pub)
	}
	if err := p.AddFact("p", []string{"a"}, VarPoly("d:y")); err != nil {
		t.Fatal(err)
	}
	ea = entryOf(t, p, "p", "a")
	if got := ea.given(); len(got) != 2 || !got[0].Equal(VarPoly("d:x")) || !got[1].Equal(VarPoly("d:y")) {
		t.Fatalf("supports given %v", got)
	}
	if eb = entryOf(t, p, "p", "b"); !eb.pub.Equal(VarPoly("d:x")) || eb.pubs != nil {
		t.Fatalf("the shared support moved: %v", eb.pub)
	}
	if removed, _ := p.RemoveSupport("p", []string{"a"}, VarPoly("d:y")); !removed {
		t.Fatal("the second support was not taken back")
	}
	if ea = entryOf(t, p, "p", "a"); !ea.pub.Equal(VarPoly("d:x")) || len(ea.given()) != 1 {
		t.Fatalf("after taking back: %v", ea.given())
	}
	m, err := p.Eval()
	if err != nil {
		t.Fatal(err)
	}
	v := MapValuation{"d:x": True, "d:y": False}
	for _, c := range []struct {
		arg  string
		want Truth
	}{{"a", True}, {"b", True}, {"c", False}} {
		if got := m.Support("p", c.arg).Eval(v); got != c.want {
			t.Errorf("p(%s) = %v, want %v", c.arg, got, c.want)
		}
	}
}

// TestUnitEntryShared: facts given once the same unit support point at one
// entry, and a fact whose second support is taken back returns to it.
func TestUnitEntryShared(t *testing.T) {
	p := NewProgram()
	for _, a := range []string{"a", "b"} {
		if err := p.AddFact("p", []string{a}, VarPoly("d:x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddFact("p", []string{"a"}, VarPoly("d:y")); err != nil {
		t.Fatal(err)
	}
	id, _ := p.preds.lookup("p")
	if entryOf(t, p, "p", "a") == entryOf(t, p, "p", "b") || p.fact(id).more.rows() != 1 {
		t.Fatal("a fact given two supports shares the entry of one, or has none of its own")
	}
	if removed, _ := p.RemoveSupport("p", []string{"a"}, VarPoly("d:y")); !removed {
		t.Fatal("the second support was not taken back")
	}
	if ea, eb := entryOf(t, p, "p", "a"), entryOf(t, p, "p", "b"); ea != eb || ea.pubs != nil {
		t.Fatalf("after taking back: entries %p %p, given %v", ea, eb, ea.given())
	}
	if n := p.fact(id).more.rows(); n != 1 {
		t.Fatalf("%d entries of their own, want the one row kept", n)
	}
}

// TestFactEntriesCompacted: removing most facts compacts the set; the
// facts left keep their supports as given, unit, wide or several, and the
// model of the compacted program equals one loaded with those facts alone.
func TestFactEntriesCompacted(t *testing.T) {
	const n = 3000
	sups := func(i int) []Poly {
		switch i % 4 {
		case 0:
			return []Poly{VarPoly("d:" + strconv.Itoa(i%7))}
		case 1:
			return []Poly{NewPoly([]string{"d:x", "d:" + strconv.Itoa(i%5)})}
		case 2:
			return []Poly{VarPoly("d:y"), VarPoly("d:" + strconv.Itoa(i%3))}
		}
		return []Poly{One()}
	}
	load := func(keep func(int) bool) *Program {
		p := NewProgram()
		for i := range n {
			if keep(i) {
				for _, s := range sups(i) {
					must(t, p.AddFact("p", []string{strconv.Itoa(i)}, s))
				}
			}
		}
		return p
	}
	p := load(func(int) bool { return true })
	for i := range n {
		if i%5 != 0 && !p.RemoveFact("p", []string{strconv.Itoa(i)}) {
			t.Fatalf("p(%d) not removed", i)
		}
	}
	id, _ := p.preds.lookup("p")
	if f := p.fact(id); f.tab.n >= n || f.tab.live != n/5 {
		t.Fatalf("%d rows, %d live: not compacted", f.tab.n, f.tab.live)
	}
	for i := 0; i < n; i += 5 {
		got, want := entryOf(t, p, "p", strconv.Itoa(i)).given(), sups(i)
		if !slices.EqualFunc(got, want, Poly.Equal) {
			t.Fatalf("p(%d): given %v, want %v", i, got, want)
		}
	}
	if got, want := dump(evalOK(t, p)), dump(evalOK(t, load(func(i int) bool { return i%5 == 0 }))); got != want {
		t.Fatalf("compacted model:\n%s\nwant\n%s", got, want)
	}
}

// TestUnitHandles: a row whose support is one literal alone stores no
// support of its own, reads back that literal's polynomial whatever the
// literal (chunk edges, far ones), and a row that had a stored support
// keeps its stored row when it becomes a unit.
func TestUnitHandles(t *testing.T) {
	lits := []uint32{0, 1, 63, 64, 1<<unitChunkBits - 1, 1 << unitChunkBits, 5000, 1 << 20}
	r := newRelation(0, 1, versionClock.Add(1))
	r.enableProvenance()
	for i, l := range lits {
		r.insert([]uint32{uint32(i)})
		fresh := ipoly{{sig: sigOf([]uint32{l}), lits: []uint32{l}}} // not the shared form
		r.setPoly(uint32(i), fresh)
	}
	for i, l := range lits {
		got := r.poly(uint32(i))
		if len(got) != 1 || len(got[0].lits) != 1 || got[0].lits[0] != l || got[0].sig != 1<<(l&63) {
			t.Fatalf("row %d: support %v, want literal %d alone", i, got, l)
		}
		if u := unitPoly(l); &u[0] != &got[0] || cap(u) != 1 || cap(u[0].lits) != 1 {
			t.Fatalf("literal %d: not the one shared, read-only form", l)
		}
	}
	if n := r.pstore.rows(); n != 0 {
		t.Fatalf("%d stored supports for rows of one literal", n)
	}
	two := ipoly{{sig: 1, lits: []uint32{0}}, {sig: 2, lits: []uint32{1}}}
	r.setPoly(0, two)
	r.setPoly(0, unitPoly(7))
	r.setPoly(0, two)
	if n := r.pstore.rows(); n != 1 || !samePoly(r.poly(0), two) {
		t.Fatalf("%d stored supports after unit and back, support %v", n, r.poly(0))
	}
}

// TestUnitPolyConcurrent: goroutines asking for the polynomials of fresh
// literals at once (growing the table) each get the right one.
func TestUnitPolyConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan uint32, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range uint32(40) {
				l := 1<<21 + (k*8+uint32(g))*(1<<unitChunkBits)/8
				if u := unitPoly(l); u[0].lits[0] != l {
					errs <- l
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for l := range errs {
		t.Errorf("literal %d: wrong polynomial", l)
	}
}
