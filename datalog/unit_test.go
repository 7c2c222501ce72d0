package datalog

import "testing"

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
	row, ok := p.facts[id].tab.find(tuple)
	if !ok {
		t.Fatalf("no fact %s%v", pred, args)
	}
	return p.facts[id].entry(row)
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
