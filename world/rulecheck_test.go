package world

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestPreflightRangeRestrictionIsTheEngines: the pre-flight's range
// restriction refuses exactly the rules the engine's AddRule refuses with
// rule.unbound-variable, and names the same variable, over random rules
// (each atom its own predicate, so arity never interferes).
func TestPreflightRangeRestrictionIsTheEngines(t *testing.T) {
	w, err := Compile(Input{Scope: "camelot"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	vars := []string{"X", "Y", "Z"}
	term := func() objects.Term {
		if r.IntN(4) == 0 {
			return objects.Const("k")
		}
		return objects.Var(vars[r.IntN(len(vars))])
	}
	refused := 0
	for i := range 2000 {
		rule := &objects.Rule{Name: fmt.Sprintf("r%d", i), Provenance: objects.Proposed("s")}
		rule.Head = objects.Atom{Pred: "h"}
		for range r.IntN(3) {
			rule.Head.Args = append(rule.Head.Args, term())
		}
		for j := range 1 + r.IntN(3) {
			l := objects.Literal{Atom: objects.Atom{Pred: fmt.Sprintf("b%d", j)}, Negated: r.IntN(3) == 0}
			for range 1 + r.IntN(2) {
				l.Atom.Args = append(l.Atom.Args, term())
			}
			rule.Body = append(rule.Body, l)
		}
		id, err := rule.ID()
		if err != nil {
			t.Fatal(err)
		}
		f, ok := w.PreflightRule(id, rule)
		engine := datalog.NewProgram().AddRule(toDatalogRule(rule, datalog.One()))
		de, _ := engine.(*datalog.Error)
		engineRefuses := de != nil && de.Code == datalog.CodeUnboundVariable
		if engine != nil && !engineRefuses {
			t.Fatalf("rule %d: engine error %v", i, engine)
		}
		if ok == engineRefuses {
			t.Fatalf("rule %+v: pre-flight ok %v, engine %v", rule, ok, engine)
		}
		if !ok {
			refused++
			if f.Code != CodeRuleUnboundVariable || f.Data["variable"] != de.Var || f.Citations[0] != id.String() {
				t.Fatalf("rule %+v: finding %+v, engine %v", rule, f, de)
			}
		}
	}
	if refused == 0 || refused == 2000 {
		t.Fatalf("%d of 2000 refused: the generator does not exercise both sides", refused)
	}
}

// TestPreflightRuleName: a name committed or staged, in the program or
// left out, is a duplicate; range restriction is checked first.
func TestPreflightRuleName(t *testing.T) {
	rule := func(name, head string) *objects.Rule {
		return &objects.Rule{Name: name, Provenance: objects.Proposed("s"),
			Head: objects.Atom{Pred: head, Args: []objects.Term{objects.Var("X")}},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "knight", Args: []objects.Term{objects.Var("X")}}}}}
	}
	base := []Entry{}
	for _, o := range []objects.Object{rule("committed", "a")} {
		id, _ := o.ID()
		base = append(base, Entry{ID: id, Object: o})
	}
	loop := &objects.Rule{Name: "loop", Provenance: objects.Proposed("s"),
		Head: objects.Atom{Pred: "p", Args: []objects.Term{objects.Var("X")}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "knight", Args: []objects.Term{objects.Var("X")}}},
			{Atom: objects.Atom{Pred: "p", Args: []objects.Term{objects.Var("X")}}, Negated: true}}}
	w, err := Compile(Input{Scope: "camelot", Base: base, Staged: []objects.Object{rule("staged", "b"), loop}})
	if err != nil {
		t.Fatal(err)
	}
	if !w.droppedRules["loop"] {
		t.Fatal("the loop rule is not left out of the program")
	}
	unbound := rule("committed", "a")
	unbound.Head.Args = append(unbound.Head.Args, objects.Var("Q"))
	for _, c := range []struct {
		r    *objects.Rule
		code string
	}{
		{rule("committed", "c"), CodeRuleDuplicate},
		{rule("staged", "c"), CodeRuleDuplicate},
		{rule("loop", "c"), CodeRuleDuplicate}, // left out of the program, still a name
		{unbound, CodeRuleUnboundVariable},
		{rule("fresh", "c"), ""},
	} {
		id, _ := c.r.ID()
		f, ok := w.PreflightRule(id, c.r)
		if ok != (c.code == "") || !ok && f.Code != c.code {
			t.Errorf("%s: ok %v finding %+v, want %q", c.r.Name, ok, f, c.code)
		}
		if c.code == CodeRuleDuplicate && !w.HasRule(c.r.Name) {
			t.Errorf("HasRule(%s) is false", c.r.Name)
		}
	}
	if w.HasRule("fresh") {
		t.Error("HasRule(fresh) is true")
	}
}
