package world

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAritiesPersistent holds the staged arity table to a plain map under
// random notes and forgets over a compiled base, and every earlier
// version to what it was when made: with never writes the table it is
// given (a staged world shares its parent's).
func TestAritiesPersistent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := newArities()
	want := map[string]map[int]bool{}
	for i := range 200 {
		pred := fmt.Sprintf("p%d", i)
		base.note(pred, i%3)
		want[pred] = map[int]bool{i % 3: true}
	}
	type version struct {
		a    arities
		want map[string]map[int]bool
	}
	var versions []version
	a := base
	for step := range 3000 {
		pred := fmt.Sprintf("p%d", r.IntN(400))
		var ns map[int]bool
		if r.IntN(4) > 0 {
			ns = map[int]bool{r.IntN(3): true}
		}
		a = a.with(pred, ns)
		if ns == nil {
			delete(want, pred)
		} else {
			want[pred] = ns
		}
		if step%300 == 0 {
			versions = append(versions, version{a, maps.Clone(want)})
		}
	}
	versions = append(versions, version{a, want})
	for i, v := range versions {
		if got := collect(v.a); !maps.EqualFunc(got, v.want, maps.Equal) {
			t.Fatalf("version %d: all() gives %d predicates, want %d", i, len(got), len(v.want))
		}
		if v.a.len() != len(v.want) {
			t.Fatalf("version %d: len %d, want %d", i, v.a.len(), len(v.want))
		}
		for pred, ns := range v.want {
			if got, ok := v.a.get(pred); !ok || !maps.Equal(got, ns) {
				t.Fatalf("version %d: %s is %v, want %v", i, pred, got, ns)
			}
		}
		if !slices.IsSorted(v.a.preds()) || len(v.a.preds()) != len(v.want) {
			t.Fatalf("version %d: preds %v", i, v.a.preds())
		}
	}
	if got := collect(base); len(got) != 200 {
		t.Fatalf("the base table changed: %d predicates", len(got))
	}
}

// TestAritiesHashChain puts predicates of one whole hash in the trie: they
// chain, and replacing or forgetting one leaves the others.
func TestAritiesHashChain(t *testing.T) {
	var n *arityNode
	for _, p := range []string{"a", "b", "c"} {
		n = n.insert(&arityLeaf{hash: 42, pred: p, ns: map[int]bool{1: true}}, 0)
	}
	n = n.insert(&arityLeaf{hash: 42, pred: "b", ns: map[int]bool{2: true}}, 0)
	n = n.insert(&arityLeaf{hash: 42, pred: "c"}, 0)
	n = n.insert(&arityLeaf{hash: 43, pred: "d", ns: map[int]bool{1: true}}, 0)
	for _, c := range []struct {
		pred string
		ok   bool
		n    int
	}{{"a", true, 1}, {"b", true, 2}, {"c", true, -1}, {"d", true, 1}, {"e", false, 0}} {
		h := uint64(42)
		if c.pred == "d" {
			h = 43
		}
		l, ok := n.find(h, c.pred, 0)
		if ok != c.ok {
			t.Fatalf("%s: found %v", c.pred, ok)
		}
		if ok && (c.n < 0 && l.ns != nil || c.n > 0 && !l.ns[c.n]) {
			t.Fatalf("%s: %v", c.pred, l.ns)
		}
	}
}

func collect(a arities) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for p, ns := range a.all() {
		if _, dup := out[p]; dup {
			panic("yielded twice: " + p)
		}
		out[p] = ns
	}
	return out
}
