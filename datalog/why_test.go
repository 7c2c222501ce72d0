// This file holds the golden tests of Why on multi-path derivations.

package datalog

import (
	"reflect"
	"testing"
)

func whyProgram(t *testing.T) *Model {
	return evalOK(t, build(t, []tfact{
		{"src1(s)", VarPoly("d:a")},
		{"src2(s)", P(M("d:b", "h:x"))},
		{"src3(s)", VarPoly("o:u")},
		{"base(s)", One()},
	}, []trule{
		{"r1", "t(X) :- src1(X)", VarPoly("h:r1")},
		{"r2", "t(X) :- src2(X)", One()},
		{"r3", "t(X) :- src3(X)", One()},
		{"r4", "u(X) :- src1(X)", VarPoly("h:k")},
		{"r5", "u(X) :- src2(X)", VarPoly("h:k")},
		{"r6", "w(X) :- base(X)", One()},
	}))
}

func TestWhy(t *testing.T) {
	m := whyProgram(t)
	tPaths := [][]string{{"o:u"}, {"d:a", "h:r1"}, {"d:b", "h:x"}}
	uPaths := [][]string{{"d:a", "h:k"}, {"d:b", "h:k", "h:x"}}
	cases := []struct {
		name string
		atom string
		v    MapValuation
		want Why
	}{
		{"one active, one defeated, one unknown", "t(s)",
			MapValuation{"d:a": True, "h:r1": True, "d:b": False, "h:x": True},
			Why{Grade: Certain, Paths: tPaths, Active: [][]string{{"d:a", "h:r1"}},
				Blocked:         []BlockedPath{{[]string{"o:u"}, []string{"o:u"}}, {[]string{"d:b", "h:x"}, []string{"d:b"}}},
				BlockingDefeats: []string{}}},
		{"every path defeated by a different decision", "t(s)",
			MapValuation{"d:a": False, "h:r1": True, "d:b": False, "h:x": True, "o:u": False},
			Why{Grade: Dead, Paths: tPaths, Active: [][]string{},
				Blocked: []BlockedPath{{[]string{"o:u"}, []string{"o:u"}}, {[]string{"d:a", "h:r1"}, []string{"d:a"}},
					{[]string{"d:b", "h:x"}, []string{"d:b"}}},
				BlockingDefeats: []string{}}},
		{"only unknowns: possible", "t(s)", MapValuation{},
			Why{Grade: Possible, Paths: tPaths, Active: [][]string{},
				Blocked: []BlockedPath{{[]string{"o:u"}, []string{"o:u"}}, {[]string{"d:a", "h:r1"}, []string{"d:a", "h:r1"}},
					{[]string{"d:b", "h:x"}, []string{"d:b", "h:x"}}},
				BlockingDefeats: []string{}}},
		{"the rule's own support is in every path", "u(s)",
			MapValuation{"h:k": False, "d:a": True, "d:b": True},
			Why{Grade: Dead, Paths: uPaths, Active: [][]string{},
				Blocked:         []BlockedPath{{[]string{"d:a", "h:k"}, []string{"h:k"}}, {[]string{"d:b", "h:k", "h:x"}, []string{"h:k", "h:x"}}},
				BlockingDefeats: []string{"h:k"}}},
		{"a false literal in one path only is not a blocking defeat", "u(s)",
			MapValuation{"h:k": False, "d:a": False, "d:b": True, "h:x": True},
			Why{Grade: Dead, Paths: uPaths, Active: [][]string{},
				Blocked:         []BlockedPath{{[]string{"d:a", "h:k"}, []string{"d:a", "h:k"}}, {[]string{"d:b", "h:k", "h:x"}, []string{"h:k"}}},
				BlockingDefeats: []string{"h:k"}}},
		{"a rule with its own support, active", "u(s)",
			MapValuation{"h:k": True, "d:a": True},
			Why{Grade: Certain, Paths: uPaths, Active: [][]string{{"d:a", "h:k"}},
				Blocked:         []BlockedPath{{[]string{"d:b", "h:k", "h:x"}, []string{"d:b", "h:x"}}},
				BlockingDefeats: []string{}}},
		{"unconditional", "w(s)", MapValuation{},
			Why{Grade: Certain, Paths: [][]string{{}}, Active: [][]string{{}}, Blocked: []BlockedPath{}, BlockingDefeats: []string{}}},
		{"unknown atom", "t(nowhere)", MapValuation{},
			Why{Grade: Dead, Paths: [][]string{}, Active: [][]string{}, Blocked: []BlockedPath{}, BlockingDefeats: []string{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := parseAtom(c.atom)
			args := []string{a.Args[0].Const}
			c.want.Pred, c.want.Args = a.Pred, args
			got := m.Why(a.Pred, args, c.v)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Why(%s) =\n%+v\nwant\n%+v", c.atom, got, c.want)
			}
		})
	}
}
