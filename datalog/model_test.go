// This file tests the model's read API: queries, facts, mentions, affected
// atoms and grader updates, strata, incremental evaluation and cloning.

package datalog

import (
	"reflect"
	"slices"
	"testing"
)

func TestQuery(t *testing.T) {
	m := evalOK(t, build(t, []tfact{
		{"rel(a, a)", One()}, {"rel(a, b)", VarPoly("x")}, {"rel(b, b)", VarPoly("y")}, {"rel(c, a)", One()},
	}, nil))
	v := MapValuation{"x": False}
	cases := []struct {
		q    string
		want []Answer
	}{
		{"rel(X, Y)", []Answer{
			{[]string{"a", "a"}, map[string]string{"X": "a", "Y": "a"}, Certain, One()},
			{[]string{"a", "b"}, map[string]string{"X": "a", "Y": "b"}, Dead, VarPoly("x")},
			{[]string{"b", "b"}, map[string]string{"X": "b", "Y": "b"}, Possible, VarPoly("y")},
			{[]string{"c", "a"}, map[string]string{"X": "c", "Y": "a"}, Certain, One()},
		}},
		{"rel(X, X)", []Answer{
			{[]string{"a", "a"}, map[string]string{"X": "a"}, Certain, One()},
			{[]string{"b", "b"}, map[string]string{"X": "b"}, Possible, VarPoly("y")},
		}},
		{"rel(a, Y)", []Answer{
			{[]string{"a", "a"}, map[string]string{"Y": "a"}, Certain, One()},
			{[]string{"a", "b"}, map[string]string{"Y": "b"}, Dead, VarPoly("x")},
		}},
		{"rel(c, a)", []Answer{{[]string{"c", "a"}, map[string]string{}, Certain, One()}}},
		{"rel(zz, Y)", []Answer{}},
		{"rel(X)", []Answer{}},
		{"nothing(X)", []Answer{}},
	}
	for _, c := range cases {
		got := m.Query(parseAtom(c.q), v)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d answers, want %d: %+v", c.q, len(got), len(c.want), got)
		}
		for i := range got {
			g, w := got[i], c.want[i]
			if !slices.Equal(g.Args, w.Args) || !reflect.DeepEqual(g.Bindings, w.Bindings) || g.Grade != w.Grade || !g.Support.Equal(w.Support) {
				t.Errorf("%s[%d] = %+v, want %+v", c.q, i, g, w)
			}
		}
	}
}

func TestMentionsAffectedAndUpdate(t *testing.T) {
	p := build(t, []tfact{
		{"claim(a)", VarPoly("d:1")}, {"claim(b)", VarPoly("d:2")}, {"claim(c)", One()},
	}, []trule{
		{"known", "known(X) :- claim(X)", VarPoly("h:rule")},
		{"rumour", "rumour(X) :- claim(X), not known(X)", Poly{}},
	})
	m := evalOK(t, p)
	names := func(fs []GroundFact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, renderAtom(f.Pred, f.Args))
		}
		return out
	}
	if got, want := names(m.Mentions("d:1")), []string{"claim(a)", "known(a)", "rumour(a)"}; !slices.Equal(got, want) {
		t.Errorf("Mentions(d:1) = %v, want %v", got, want)
	}
	if got, want := names(m.Mentions("h:rule")), []string{"known(a)", "known(b)", "known(c)"}; !slices.Equal(got, want) {
		t.Errorf("Mentions(h:rule) = %v, want %v", got, want)
	}
	// rumour(c) = {not known(c)} mentions no variable, but negates an atom
	// that h:rule decides.
	want := []string{"known(a)", "known(b)", "known(c)", "rumour(a)", "rumour(b)", "rumour(c)"}
	if got := names(m.Affected("h:rule")); !slices.Equal(got, want) {
		t.Errorf("Affected(h:rule) = %v, want %v", got, want)
	}
	if got := m.Affected("no-such-variable"); len(got) != 0 {
		t.Errorf("Affected(unknown) = %v", got)
	}
	v1 := MapValuation{"d:1": True, "d:2": True, "h:rule": True}
	g1 := m.Grader(v1)
	for _, f := range []string{"known(a)", "rumour(a)", "rumour(c)"} {
		a := parseAtom(f)
		g1.Grade(a.Pred, a.Args[0].Const)
	}
	v2 := MapValuation{"d:1": True, "d:2": True, "h:rule": False}
	g2 := g1.Update(v2, "h:rule")
	fresh := m.Grader(v2)
	for _, f := range m.Facts("rumour") {
		if got, want := g2.GradeFact(f), fresh.GradeFact(f); got != want {
			t.Errorf("updated grader: rumour%v %v, fresh %v", f.Args, got, want)
		}
	}
	if got := g2.Grade("rumour", "c"); got != Certain {
		t.Errorf("rumour(c) after defeating h:rule: %v, want certain", got)
	}
	if got := g1.Grade("rumour", "c"); got != Dead {
		t.Errorf("the old grader changed: rumour(c) %v, want dead", got)
	}
}

func TestIncrementalEvalReusesUnchangedStrata(t *testing.T) {
	p := build(t, []tfact{
		{"edge(a, b)", VarPoly("e1")}, {"edge(b, c)", VarPoly("e2")}, {"tag(a)", One()},
	}, append(slices.Clone(tcRules), trule{"tagged", "tagged(X) :- tag(X)", Poly{}}))
	m1 := evalOK(t, p)
	if s := m1.Stats(); s.Reused != 0 {
		t.Fatalf("first Eval reused %d strata", s.Reused)
	}
	m2 := evalOK(t, p)
	if s := m2.Stats(); s.Reused != s.Strata {
		t.Fatalf("unchanged program: reused %d of %d strata", s.Reused, s.Strata)
	}
	must(t, p.AddFact("tag", []string{"b"}, One()))
	m3 := evalOK(t, p)
	if s := m3.Stats(); s.Reused != 2 { // edge and path
		t.Errorf("after a tag fact: reused %d strata, want 2 (edge, path)", s.Reused)
	}
	if p.RemoveFact("edge", []string{"b", "c"}) != true || p.RemoveFact("edge", []string{"b", "c"}) {
		t.Fatal("RemoveFact")
	}
	m4 := evalOK(t, p)
	if m4.Len("path") != 1 || m3.Len("path") != 3 {
		t.Errorf("path atoms %d after removal (want 1), %d before (want 3)", m4.Len("path"), m3.Len("path"))
	}
	if n := p.RemoveRule("step"); n != 1 {
		t.Fatalf("RemoveRule removed %d", n)
	}
	must(t, p.AddFact("edge", []string{"b", "c"}, VarPoly("e2")))
	m5 := evalOK(t, p)
	if m5.Len("path") != 2 {
		t.Errorf("path atoms %d without the step rule, want 2", m5.Len("path"))
	}
	// Every model equals a fresh evaluation of the same program.
	fresh := p.Clone()
	fresh.last = nil
	if got, want := dump(m5), dump(evalOK(t, fresh)); got != want {
		t.Errorf("incremental model\n%s\nfresh\n%s", got, want)
	}
	if dump(m1) != dump(m2) {
		t.Error("re-evaluating an unchanged program changed the model")
	}
}

func TestCloneIsIndependent(t *testing.T) {
	p := build(t, []tfact{{"edge(a, b)", One()}}, tcRules)
	m1 := evalOK(t, p)
	c := p.Clone()
	must(t, c.AddFact("edge", []string{"b", "c"}, One()))
	must(t, c.AddRule(parseRule("extra", "node(X) :- edge(X, Y)", One())))
	mp, mc := evalOK(t, p), evalOK(t, c)
	if mp.Len("path") != 1 || mc.Len("path") != 3 || mp.Len("node") != 0 || mc.Len("node") != 2 {
		t.Errorf("clone leaked: original path %d node %d, clone path %d node %d", mp.Len("path"), mp.Len("node"), mc.Len("path"), mc.Len("node"))
	}
	must(t, p.AddFact("edge", []string{"x", "y"}, One()))
	if c.RemoveFact("edge", []string{"x", "y"}) {
		t.Error("a fact added to the original appeared in the clone")
	}
	if dump(m1) != dump(mp) {
		t.Error("original changed by its clone")
	}
}

func TestStrata(t *testing.T) {
	p := build(t, []tfact{{"edge(a, b)", One()}, {"node(a)", One()}}, append(slices.Clone(tcRules),
		trule{"iso", "isolated(X) :- node(X), not linked(X)", Poly{}},
		trule{"lnk", "linked(X) :- path(X, Y)", Poly{}}))
	got, err := p.Strata()
	must(t, err)
	want := []Stratum{
		{Preds: []string{"edge"}, Rules: []string{}, Reads: []string{}, Negates: []string{}},
		{Preds: []string{"node"}, Rules: []string{}, Reads: []string{}, Negates: []string{}},
		{Preds: []string{"path"}, Rules: []string{"base", "step"}, Reads: []string{"edge"}, Negates: []string{}, Recursive: true},
		{Preds: []string{"linked"}, Rules: []string{"lnk"}, Reads: []string{"path"}, Negates: []string{}},
		{Preds: []string{"isolated"}, Rules: []string{"iso"}, Reads: []string{"linked", "node"}, Negates: []string{"linked"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Strata =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := p.Dependents("edge"), []string{"edge", "isolated", "linked", "path"}; !slices.Equal(got, want) {
		t.Errorf("Dependents(edge) = %v, want %v", got, want)
	}
	if got := p.Dependents("unknown"); len(got) != 0 {
		t.Errorf("Dependents(unknown) = %v", got)
	}
}

func TestPolyArithmetic(t *testing.T) {
	a, b, c := VarPoly("a"), VarPoly("b"), VarPoly("c")
	cases := []struct {
		name string
		got  Poly
		want string
	}{
		{"zero", Poly{}, "0"},
		{"one", One(), "{}"},
		{"sum sorts", c.Add(a), "{a} + {c}"},
		{"product", a.Mul(b), "{a, b}"},
		{"idempotent", a.Mul(a).Add(a), "{a}"},
		{"absorption", a.Add(a.Mul(b)), "{a}"},
		{"absorption, other order", a.Mul(b).Add(a), "{a}"},
		{"one absorbs all", a.Add(One()), "{}"},
		{"zero annihilates", a.Mul(Poly{}), "0"},
		{"one is neutral", a.Mul(One()), "{a}"},
		{"distributes", a.Add(b).Mul(c), "{a, c} + {b, c}"},
		{"order: length then lexicographic", NewPoly(M("z"), M("b", "c"), M("a", "d")), "{z} + {a, d} + {b, c}"},
		{"NewPoly() is zero", NewPoly(), "0"},
		{"NewPoly(nil) is one", NewPoly(nil), "{}"},
	}
	for _, c := range cases {
		if got := c.got.String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if !(Poly{}).IsZero() || One().IsZero() || !One().IsOne() || a.IsOne() {
		t.Error("IsZero/IsOne")
	}
	v := MapValuation{"a": True, "b": False}
	for _, c := range []struct {
		p    Poly
		want Truth
	}{{a, True}, {b, False}, {c, Unknown}, {a.Mul(c), Unknown}, {b.Add(c), Unknown}, {b.Mul(c), False}, {One(), True}, {Poly{}, False}} {
		if got := c.p.Eval(v); got != c.want {
			t.Errorf("Eval(%s) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := (Poly{}).Monomials(); got == nil || len(got) != 0 {
		t.Errorf("zero Monomials = %#v, want non-nil empty", got)
	}
}

func TestRenderingOfOddConstants(t *testing.T) {
	p := NewProgram()
	must(t, p.AddFact("q", []string{"a b", ""}, VarPoly("x")))
	must(t, p.AddFact("s", []string{"a b", ""}, One()))
	must(t, p.AddRule(Rule{Name: "r", Head: Atom{"r", []Term{V("X"), V("Y")}}, Body: []Literal{
		{Atom: Atom{"s", []Term{V("X"), V("Y")}}}, {Atom: Atom{"q", []Term{V("X"), V("Y")}}, Negated: true}}, Support: One()}))
	m := evalOK(t, p)
	if got, want := m.Support("r", "a b", "").String(), `{not q("a b", "")}`; got != want {
		t.Errorf("support %s, want %s", got, want)
	}
}
