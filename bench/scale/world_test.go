package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// parseWorld generates the world of n objects and parses it back.
func parseWorld(t *testing.T, n int) (*dli.Document, int) {
	t.Helper()
	var b bytes.Buffer
	decls, err := writeWorld(&b, n)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dli.Parse("world.dli", b.Bytes())
	if err != nil {
		t.Fatalf("the generated world does not parse: %v", err)
	}
	return doc, decls
}

// TestWorldShape: the generated file is n objects in the right mix, the
// 18 rules among them with a recursion and negations, and every person a
// fact points at exists.
func TestWorldShape(t *testing.T) {
	for _, n := range []int{100, 1000, 12345} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			doc, decls := parseWorld(t, n)
			if len(doc.Decls) != decls || doc.Scope != scopeName {
				t.Fatalf("parsed %d declarations in scope %q, wrote %d", len(doc.Decls), doc.Scope, decls)
			}
			np := persons(n)
			if want := np*(keysPer+1) + len(rules); decls != want || decls > n+len(rules) || decls < n-keysPer {
				t.Fatalf("%d declarations for n=%d, want %d", decls, n, want)
			}
			counts := map[string]int{}
			people := map[string]bool{}
			var rs []*objects.Rule
			for _, d := range doc.Decls {
				switch o := d.Object.(type) {
				case *objects.Entity:
					people[o.Ident] = true
				case *objects.Fact:
					counts[o.Key]++
				case *objects.Rule:
					rs = append(rs, o)
				}
			}
			if len(people) != np || len(rs) != 18 {
				t.Fatalf("%d persons and %d rules, want %d and 18", len(people), len(rs), np)
			}
			for _, k := range keys {
				if c := counts[k]; c < np*8/10-1 || c > np {
					t.Errorf("key %s on %d of %d persons", k, c, np)
				}
			}
			checkReferences(t, doc, people)
			recursive, negations := ruleShape(rs)
			if recursive != 1 || negations != 4 {
				t.Errorf("%d recursive rules and %d negations, want 1 and 4", recursive, negations)
			}
		})
	}
}

// checkReferences: the keys whose values name persons name existing ones.
func checkReferences(t *testing.T, doc *dli.Document, people map[string]bool) {
	t.Helper()
	for _, d := range doc.Decls {
		f, ok := d.Object.(*objects.Fact)
		if !ok {
			continue
		}
		switch f.Key {
		case "liege", "kin", "rival", "mentor":
			if !people[f.Value] {
				t.Fatalf("%s.%s = %s: no such person", f.Entity, f.Key, f.Value)
			}
		}
	}
}

// ruleShape counts the rules whose head predicate occurs in their own
// body, and the negated literals.
func ruleShape(rs []*objects.Rule) (recursive, negations int) {
	for _, r := range rs {
		self := false
		for _, l := range r.Body {
			self = self || l.Atom.Pred == r.Head.Pred
			if l.Negated {
				negations++
			}
		}
		if self {
			recursive++
		}
	}
	return recursive, negations
}

// TestWorldDerivedIsLinear compiles the world at two sizes and checks
// that every predicate a rule derives holds a bounded number of atoms per
// person — the recursion and the join do not grow faster than the store —
// and that the recursion and each negation derive something.
func TestWorldDerivedIsLinear(t *testing.T) {
	for _, n := range []int{2000, 4000} {
		doc, _ := parseWorld(t, n)
		var base []world.Entry
		for _, d := range doc.Decls {
			id, err := d.Object.ID()
			if err != nil {
				t.Fatal(err)
			}
			base = append(base, world.Entry{ID: id, Object: d.Object})
		}
		w, err := world.Compile(world.Input{Scope: scopeName, Base: base})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range w.Findings() {
			if f.Severity == world.SeverityError {
				t.Fatalf("n=%d: an error finding would block the import: %s %s", n, f.Code, f.Message)
			}
		}
		np := persons(n)
		for _, d := range derived {
			got := len(w.Query(atomOf(d.pred, d.arity)))
			if got == 0 || got > d.perPerson*np {
				t.Errorf("n=%d: %d %s atoms, want 1..%d", n, got, d.pred, d.perPerson*np)
			}
		}
		if l, m := len(w.Query(atomOf("lineage", 2))), len(w.Query(atomOf("mentor", 2))); l <= m {
			t.Errorf("n=%d: the recursion adds nothing: %d lineage atoms over %d mentor facts", n, l, m)
		}
	}
}

// derived are predicates the rules derive, with the most atoms each may
// hold per person: a mentor cycle of four closes into at most 16 pairs.
var derived = []struct {
	pred      string
	arity     int
	perPerson int
}{
	{"lineage", 2, 4}, {"vassal", 2, 1}, {"court", 2, 1}, {"kinship", 2, 2}, {"student", 1, 1},
	{"errant", 1, 1}, {"forsworn", 1, 1}, {"homeless", 1, 1}, {"legend", 1, 1}, {"hero", 1, 1},
}

// atomOf is a goal over every atom of a predicate.
func atomOf(pred string, arity int) datalog.Atom {
	args := make([]datalog.Term, arity)
	for i := range args {
		args[i] = datalog.V(fmt.Sprintf("A%d", i))
	}
	return datalog.Atom{Pred: pred, Args: args}
}
