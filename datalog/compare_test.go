package datalog

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCompareConsts(t *testing.T) {
	cases := []struct {
		a, b string
		op   CmpOp
		want bool
	}{
		{"n:2", "n:10", CmpLt, true}, // as numbers, not as strings
		{"n:10", "n:2", CmpGt, true},
		{"n:-1.5", "n:1", CmpLe, true},
		{"n:10", "n:10.0", CmpEq, true}, // two constants, one number
		{"n:10", "n:10.0", CmpNe, false},
		{"n:3", "n:3", CmpGe, true},
		{"s:10", "s:9", CmpLt, true}, // strings byte by byte
		{"s:b", "s:a", CmpGt, true},
		{"s:a", "s:a", CmpEq, true},
		{"b:false", "b:true", CmpLt, true},
		{"n:1", "s:1", CmpNe, true}, // kinds differ: only unequal
		{"n:1", "s:1", CmpEq, false},
		{"n:1", "s:1", CmpLt, false},
		{"n:1", "s:1", CmpGt, false},
		{"n:1", "s:1", CmpGe, false},
		{"a", "b", CmpLt, true}, // no kind: strings
		{"a", "n:1", CmpNe, true},
		{"a", "n:1", CmpLt, false},
		{"xy:1", "x:1", CmpNe, true},
		{"n:1", "n:2", CmpOp(0), false},
		{"n:1", "n:2", CmpOp(9), false},
	}
	for _, c := range cases {
		if got := CompareConsts(c.op, c.a, c.b); got != c.want {
			t.Errorf("%s %s %s = %v, want %v", c.a, c.op, c.b, got, c.want)
		}
	}
}

func TestComparisonRefused(t *testing.T) {
	x, y := V("X"), V("Y")
	val := Literal{Atom: Atom{Pred: "val", Args: []Term{x, V("W")}}}
	cases := []struct {
		name string
		body []Literal
		code string
		msg  string
	}{
		{"a variable no atom binds", []Literal{val, Cmp(CmpLt, x, y)}, CodeUnboundVariable, "variable Y in the comparison X < Y"},
		{"a variable only a negation has", []Literal{val, {Atom: Atom{Pred: "q", Args: []Term{x}}, Negated: true}, Cmp(CmpLt, x, V("Z"))}, CodeUnboundVariable, "variable Z"},
		{"the anonymous variable", []Literal{val, Cmp(CmpLt, x, V(Anon))}, CodeUnboundVariable, "anonymous variable _"},
		{"an unknown operator", []Literal{val, Cmp(CmpOp(7), x, C("n:1"))}, CodeInvalidTerm, "unknown operator"},
		{"negated", []Literal{val, {Cmp: Comparison{Op: CmpLt, X: x, Y: C("n:1")}, Negated: true}}, CodeInvalidTerm, "sets Cmp alone"},
		{"beside an atom", []Literal{val, {Cmp: Comparison{Op: CmpLt, X: x, Y: C("n:1")}, Atom: Atom{Pred: "q"}}}, CodeInvalidTerm, "sets Cmp alone"},
		{"a term with neither", []Literal{val, Cmp(CmpLt, x, Term{})}, CodeInvalidTerm, "neither of Var and Const"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewProgram()
			err := p.AddRule(Rule{Name: "r", Head: Atom{Pred: "h", Args: []Term{x}}, Body: c.body, Support: One()})
			var e *Error
			if !errors.As(err, &e) || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("AddRule: %v; want %s saying %q", err, c.code, c.msg)
			}
			if len(p.Rules()) != 0 {
				t.Fatal("the refused rule was added")
			}
		})
	}
}

func TestComparisonFilters(t *testing.T) {
	p := build(t, []tfact{
		{"val(a, n:2)", One()}, {"val(b, n:10)", VarPoly("x")}, {"val(c, s:z)", One()}, {"val(d, n:7)", One()},
		{"lim(n:5)", VarPoly("l")},
	}, []trule{
		{"over", "over(I) :- val(I, V), lim(L), V > L", Poly{}},
		{"under", "under(I) :- val(I, V), V < n:5", Poly{}},
		{"other", "other(I, J) :- val(I, V), val(J, W), V != W, I < J, V <= n:7", Poly{}},
		{"always", "always(I) :- val(I, n:2), n:1 < n:2", Poly{}},
		{"never", "never(I) :- val(I, n:2), n:2 < n:1", Poly{}},
	})
	m := evalOK(t, p)
	want := `always(a) = {}
lim(n:5) = {l}
other(a, b) = {x}
other(a, c) = {}
other(a, d) = {}
over(b) = {l, x}
over(d) = {l}
under(a) = {}
val(a, n:2) = {}
val(b, n:10) = {x}
val(c, s:z) = {}
val(d, n:7) = {}
`
	if got := dump(m); got != want {
		t.Fatalf("model\n%s\nwant\n%s", got, want)
	}
	// The comparisons survive a snapshot: loaded, the program evaluates
	// a change to the same model as the original.
	q, qm, ok := snapRoundTrip(t, p, m)
	if !ok {
		t.Fatal("the snapshot was refused")
	}
	for _, pr := range []*Program{p, q} {
		must(t, pr.AddFact("val", []string{"e", "n:6"}, One()))
	}
	m2, err := p.EvalFrom(m)
	must(t, err)
	q2, err := q.EvalFrom(qm)
	must(t, err)
	if a, b := dump(q2), dump(m2); a != b || !strings.Contains(a, "over(e) = {l}") {
		t.Fatalf("after a change, loaded\n%s\noriginal\n%s", a, b)
	}
	var b1, b2 bytes.Buffer
	must(t, p.Snapshot(&b1, m2))
	must(t, q.Snapshot(&b2, q2))
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatal("the snapshots of the original and of the loaded program differ")
	}
}
