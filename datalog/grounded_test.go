// This file holds the hand-computed golden tests of grounded labelling.

package datalog

import (
	"maps"
	"testing"
)

func TestGrounded(t *testing.T) {
	type att = [2]string
	cases := []struct {
		name    string
		args    []string
		attacks []att
		want    map[string]Label
	}{
		{"no attacks", []string{"a", "b"}, nil, map[string]Label{"a": In, "b": In}},
		{"chain a→b→c", []string{"a", "b", "c"}, []att{{"a", "b"}, {"b", "c"}},
			map[string]Label{"a": In, "b": Out, "c": In}},
		{"restore: every attacker out", []string{"d", "a", "x", "t"},
			[]att{{"d", "a"}, {"d", "x"}, {"a", "t"}, {"x", "t"}},
			map[string]Label{"d": In, "a": Out, "x": Out, "t": In}},
		{"not restored while one attacker is in", []string{"d", "a", "x", "t"},
			[]att{{"d", "a"}, {"a", "t"}, {"x", "t"}},
			map[string]Label{"d": In, "a": Out, "x": In, "t": Out}},
		{"self-attack", []string{"a", "b"}, []att{{"a", "a"}, {"a", "b"}},
			map[string]Label{"a": Undecided, "b": Undecided}},
		{"self-attacker defeated from outside", []string{"a", "x"}, []att{{"a", "a"}, {"x", "a"}},
			map[string]Label{"a": Out, "x": In}},
		{"mutual attack", []string{"a", "b", "c"}, []att{{"a", "b"}, {"b", "a"}, {"b", "c"}},
			map[string]Label{"a": Undecided, "b": Undecided, "c": Undecided}},
		{"3-cycle", []string{"a", "b", "c"}, []att{{"a", "b"}, {"b", "c"}, {"c", "a"}},
			map[string]Label{"a": Undecided, "b": Undecided, "c": Undecided}},
		{"4-cycle, no outside attacker", []string{"a", "b", "c", "d"},
			[]att{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}},
			map[string]Label{"a": Undecided, "b": Undecided, "c": Undecided, "d": Undecided}},
		{"3-cycle with an outside in attacker", []string{"x", "a", "b", "c"},
			[]att{{"x", "a"}, {"a", "b"}, {"b", "c"}, {"c", "a"}},
			map[string]Label{"x": In, "a": Out, "b": In, "c": Out}},
		{"4-cycle with an outside in attacker", []string{"x", "a", "b", "c", "d"},
			[]att{{"x", "a"}, {"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}},
			map[string]Label{"x": In, "a": Out, "b": In, "c": Out, "d": In}},
		{"duplicates and unknown names", []string{"a", "b", "a"},
			[]att{{"a", "b"}, {"a", "b"}, {"ghost", "a"}, {"b", "ghost"}},
			map[string]Label{"a": In, "b": Out}},
		{"empty", nil, nil, map[string]Label{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Grounded(c.args, c.attacks); !maps.Equal(got, c.want) {
				t.Errorf("Grounded = %v, want %v", got, c.want)
			}
		})
	}
}

func TestGroundedIDsIgnoresOutOfRange(t *testing.T) {
	got := GroundedIDs(2, [][2]int32{{0, 1}, {5, 0}, {-1, 1}, {1, 7}})
	if got[0] != In || got[1] != Out {
		t.Fatalf("GroundedIDs = %v, want [in out]", got)
	}
}

func TestLabelString(t *testing.T) {
	for l, want := range map[Label]string{In: "in", Out: "out", Undecided: "undecided", Label(9): "invalid"} {
		if l.String() != want {
			t.Errorf("%d.String() = %q, want %q", l, l.String(), want)
		}
	}
}
