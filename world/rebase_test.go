package world

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// rebased compiles base with a Rebase onto a memBase of other (base
// itself when nil), and reports whether the world took it.
func rebased(t *testing.T, base, other []Entry) (*World, bool) {
	t.Helper()
	if other == nil {
		other = base
	}
	asked, taken := false, false
	w := mustCompile(t, Input{Scope: "camelot", Base: slices.Clone(base), Owned: true,
		Rebase: func(n int) (EntryBase, func(bool)) {
			if asked {
				t.Fatal("Rebase asked twice")
			}
			asked = true
			if want := newMemBase(t, base).Len(); n != want {
				t.Fatalf("Rebase told %d entries, the world holds %d", n, want)
			}
			return newMemBase(t, other), func(ok bool) { taken = ok }
		}})
	if !asked {
		t.Fatal("a compile of committed entries did not ask for a base")
	}
	return w, taken
}

// TestRebaseEqualsCompile: a world moved onto a base of its entries once
// lowered (DL-0532) reads as the compile that kept them, reads them from
// the base, writes the same snapshot, and stages, settles and advances
// as that compile does.
func TestRebaseEqualsCompile(t *testing.T) {
	for seed := range lazySeeds {
		r := rand.New(rand.NewPCG(seed, 29))
		base := canonicalEntries(t, randomWorld(r))
		w := mustCompile(t, Input{Scope: "camelot", Base: slices.Clone(base)})
		rw, taken := rebased(t, base, nil)
		if !taken || rw.ix.entries.lz == nil {
			t.Fatalf("seed %d: the base was not taken (taken %v)", seed, taken)
		}
		if rw.lowered == nil || rw.lowered.ix != rw.ix {
			t.Fatalf("seed %d: the record of the lowering is not of the new index: staging would lower every entry again", seed)
		}
		if g, x := dump(rw), dump(w); g != x {
			t.Fatalf("seed %d: the rebased world differs:\n--- rebased\n%s\n--- compile\n%s", seed, g, x)
		}
		if g, x := objectIDs(rw), objectIDs(w); !slices.Equal(g, x) {
			t.Fatalf("seed %d: the rebased world holds %d objects, the compile %d", seed, len(g), len(x))
		}
		var gs, xs bytes.Buffer
		gErr, xErr := rw.WriteCompiled(&gs), w.WriteCompiled(&xs)
		if (gErr == nil) != (xErr == nil) || !bytes.Equal(gs.Bytes(), xs.Bytes()) {
			t.Fatalf("seed %d: snapshots differ (%v, %v; %d and %d bytes)", seed, gErr, xErr, gs.Len(), xs.Len())
		}
		for step := range 20 {
			add := []objects.Object{randomStep(r, step)}
			var err error
			if w, err = w.Stage(add, nil); err != nil {
				t.Fatal(err)
			}
			if rw, err = rw.Stage(add, nil); err != nil {
				t.Fatal(err)
			}
			if g, x := dump(rw), dump(w); g != x {
				t.Fatalf("seed %d step %d: staged over the rebased world:\n--- rebased\n%s\n--- compile\n%s", seed, step, g, x)
			}
		}
		sw, ok1 := w.Settle()
		srw, ok2 := rw.Settle()
		if ok1 != ok2 || ok1 && dump(srw) != dump(sw) {
			t.Fatalf("seed %d: settled, the rebased world differs (%v, %v)", seed, ok1, ok2)
		}
		add := entriesOf(t, []objects.Object{&objects.Fact{Entity: "arthur", Key: "rank", Value: fmt.Sprint("r", seed), Provenance: objects.Proposed("s")}})
		w0 := mustCompile(t, Input{Scope: "camelot", Base: slices.Clone(base)})
		rw0, _ := rebased(t, base, nil)
		aw, _, err := w0.Advance(add, nil)
		if err != nil {
			t.Fatal(err)
		}
		arw, _, err := rw0.Advance(add, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dump(arw) != dump(aw) {
			t.Fatalf("seed %d: advanced, the rebased world differs", seed)
		}
	}
}

// TestRebaseRefused: a base that is not the world's entries by what
// rebaseOnto holds it to (as many, the same first and last) is refused,
// and the world keeps its own; rules left out for a cycle are lowered
// again over a base taken.
func TestRebaseRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 29))
	base := canonicalEntries(t, randomWorld(r))
	want := dump(mustCompile(t, Input{Scope: "camelot", Base: slices.Clone(base)}))
	sorted := slices.Clone(base)
	slices.SortFunc(sorted, byID)
	sorted = slices.CompactFunc(sorted, func(a, b Entry) bool { return a.ID == b.ID })
	another := func(o objects.Object) Entry { return canonicalEntries(t, []objects.Object{o})[0] }
	var first, last Entry
	for i := 0; first.Object == nil || last.Object == nil; i++ {
		e := another(&objects.Fact{Entity: "zz", Key: "p", Value: fmt.Sprint("v", i), Provenance: objects.Proposed("s")})
		switch {
		case byID(e, sorted[0]) < 0 && first.Object == nil:
			first = e
		case byID(e, sorted[len(sorted)-1]) > 0 && last.Object == nil:
			last = e
		}
	}
	n := len(sorted)
	for name, b := range map[string][]Entry{
		"one fewer":     sorted[1:],
		"another first": append([]Entry{first}, sorted[1:]...),
		"another last":  append(slices.Clone(sorted[:n-1]), last),
		"one more":      append(slices.Clone(sorted), last),
		"empty":         {},
	} {
		w, taken := rebased(t, base, b)
		if taken || w.ix.entries.lz != nil {
			t.Fatalf("%s: a base of other entries was taken", name)
		}
		if got := dump(w); got != want {
			t.Fatalf("%s: the world differs after a refused base:\n%s\n---\n%s", name, got, want)
		}
	}
	X := objects.Var("X")
	atom := func(p string) objects.Atom { return objects.Atom{Pred: p, Args: []objects.Term{X}} }
	cycle := canonicalEntries(t, append(randomWorld(r),
		&objects.Rule{Name: "r1", Head: atom("knight"), Provenance: objects.Proposed("s"),
			Body: []objects.Literal{{Atom: atom("person")}, {Atom: atom("squire"), Negated: true}}},
		&objects.Rule{Name: "r2", Head: atom("squire"), Provenance: objects.Proposed("s"),
			Body: []objects.Literal{{Atom: atom("person")}, {Atom: atom("knight"), Negated: true}}}))
	w, taken := rebased(t, cycle, nil)
	if !taken {
		t.Fatal("the base of a world with a cycle was not taken")
	}
	if g, x := dump(w), dump(mustCompile(t, Input{Scope: "camelot", Base: slices.Clone(cycle)})); g != x {
		t.Fatalf("with a cycle, the rebased world differs:\n%s\n---\n%s", g, x)
	}
}
