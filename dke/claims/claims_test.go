package claims

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

var room = Cell{Kind: "Sensor", Subject: "s1", Attr: "room"}

// op is one write of a scenario.
type op struct {
	verb   string // remember, update, forget, before
	v      Value
	source string
	at     int64
	want   int // claims added or removed
}

func TestTxSemantics(t *testing.T) {
	tests := []struct {
		name    string
		ops     []op
		claims  int    // at the cell after
		current string // value in force, "" for none
	}{
		{"remember adds", []op{{"remember", Str("a"), "s", 0, 1}}, 1, "a"},
		{"remember is idempotent per source and value", []op{{"remember", Str("a"), "s", 0, 1}, {"remember", Str("a"), "s", 0, 0}}, 1, "a"},
		{"another source is a claim", []op{{"remember", Str("a"), "s", 0, 1}, {"remember", Str("a"), "t", 0, 1}}, 2, "a"},
		{"same text, other type, is a claim", []op{{"remember", Str("1"), "s", 0, 1}, {"remember", Int(1), "s", 0, 1}}, 2, "1"},
		{"update always records", []op{{"remember", Str("a"), "s", 0, 1}, {"update", Str("a"), "s", 0, 1}}, 2, "a"},
		{"a remembered earlier value is no change", []op{{"remember", Str("a"), "s", 0, 1}, {"update", Str("b"), "s", 0, 1}, {"remember", Str("a"), "s", 0, 0}}, 2, "b"},
		{"forget removes every claim", []op{{"remember", Str("a"), "s", 0, 1}, {"update", Str("b"), "s", 0, 1}, {"update", Str("c"), "t", 0, 1}, {"forget", Value{}, "", 0, 3}}, 0, ""},
		{"forget of nothing", []op{{"forget", Value{}, "", 0, 0}}, 0, ""},
		{"range forget never takes the value in force", []op{{"remember", Str("a"), "s", 0, 1}, {"before", Value{}, "", 99, 0}}, 1, "a"},
		{"range forget takes older versions", []op{{"remember", Str("a"), "s", 0, 1}, {"update", Str("b"), "s", 0, 1}, {"update", Str("c"), "s", 0, 1}, {"before", Value{}, "", 3, 2}}, 1, "c"},
		{"range forget before an instant", []op{{"remember", Str("a"), "s", 0, 1}, {"update", Str("b"), "s", 0, 1}, {"update", Str("c"), "s", 0, 1}, {"before", Value{}, "", 2, 1}}, 2, "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMem()
			for i, o := range tt.ops {
				// Each op is committed on its own, as a run outside a
				// branch does.
				snap, _ := m.Snapshot()
				tx := NewTx(snap)
				var got int
				switch o.verb {
				case "remember":
					got = tx.Remember(room, o.v, o.source)
				case "update":
					got = tx.Update(room, o.v, o.source)
				case "forget":
					got = tx.Forget(room)
				case "before":
					got = tx.ForgetBefore(room, o.at)
				}
				if got != o.want {
					t.Fatalf("op %d (%s): %d claims, want %d", i, o.verb, got, o.want)
				}
				if _, err := m.Commit(tx.Changes()); err != nil {
					t.Fatal(err)
				}
			}
			snap, _ := m.Snapshot()
			tx := NewTx(snap)
			if n := len(tx.Claims(room)); n != tt.claims {
				t.Errorf("%d claims at the cell, want %d", n, tt.claims)
			}
			cur, ok := tx.Current(room)
			if got := cur.Value.Literal("True", "False"); ok != (tt.current != "") || ok && got != `"`+tt.current+`"` && got != tt.current {
				t.Errorf("value in force %s (found %v), want %q", got, ok, tt.current)
			}
		})
	}
}

func TestSnapshotsAndConflicts(t *testing.T) {
	m := NewMem()
	before, _ := m.Snapshot()
	tx := NewTx(before)
	tx.Remember(room, Str("a"), "s")
	tx.Remember(Cell{"Sensor", "s0", "celsius"}, Float(20), "s")
	if got := tx.Subjects("Sensor"); len(got) != 2 || got[0] != "s0" {
		t.Errorf("a Tx sees its own writes in order: %v", got)
	}
	if len(before.Claims(room)) != 0 {
		t.Error("a snapshot saw a write not yet committed")
	}
	stale := NewTx(before)
	stale.Remember(room, Str("b"), "s")
	if _, err := m.Commit(tx.Changes()); err != nil {
		t.Fatal(err)
	}
	if len(before.Claims(room)) != 0 {
		t.Error("a commit changed an earlier snapshot")
	}
	if _, err := m.Commit(stale.Changes()); !errors.Is(err, ErrConflict) {
		t.Errorf("a change set over a stale snapshot: %v, want ErrConflict", err)
	}
	// A forget-only commit moves the version, though not the clock: a
	// change set made before it conflicts.
	s1, _ := m.Snapshot()
	forget, late := NewTx(s1), NewTx(s1)
	forget.Forget(room)
	late.Update(room, Str("c"), "s")
	if _, err := m.Commit(forget.Changes()); err != nil {
		t.Fatal(err)
	}
	if s2, _ := m.Snapshot(); s2.Clock() != s1.Clock() || s2.Version() == s1.Version() {
		t.Errorf("forget-only commit: clock %d→%d, version %s→%s", s1.Clock(), s2.Clock(), s1.Version(), s2.Version())
	}
	if _, err := m.Commit(late.Changes()); !errors.Is(err, ErrConflict) {
		t.Errorf("a change set made before a forget: %v, want ErrConflict", err)
	}
	// A claim added and forgotten in one Tx changes nothing.
	now, _ := m.Snapshot()
	tx = NewTx(now)
	tx.Remember(Cell{"K", "x", "y"}, Int(1), "s")
	tx.Forget(Cell{"K", "x", "y"})
	if cs := tx.Changes(); !cs.Empty() {
		t.Errorf("add then forget left %+v", cs)
	}
	if tx.Subjects("K") != nil {
		t.Error("a forgotten subject is still listed")
	}
}

func TestIDAndValues(t *testing.T) {
	a := Claim{Cell: room, Value: Str("kitchen"), Source: "survey", At: 1}
	b := a
	b.At = 2
	ida, err := a.ID()
	if err != nil {
		t.Fatal(err)
	}
	idb, _ := b.ID()
	again, _ := a.ID()
	if ida != again || ida == idb {
		t.Errorf("ids: same claim %v %v, other instant %v", ida, again, idb)
	}
	canon, _ := a.Canonical()
	if want := `{"at":1,"cell":{"attribute":"room","kind":"Sensor","subject":"s1"},"source":"survey","value":{"string":"kitchen","type":"string"}}`; string(canon) != want {
		t.Errorf("canonical bytes\n%s\nwant\n%s", canon, want)
	}
	for _, v := range []Value{Int(math.MaxInt64), Int(-3), Float(2.5), Bool(false), Str(""), List(nil), List([]string{"a"}), Subject("Room", "r1")} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(raw, &back); err != nil || !back.Equal(v) {
			t.Errorf("%s round-trips to %+v (%v)", raw, back, err)
		}
	}
	if _, err := json.Marshal(Float(math.NaN())); err == nil {
		t.Error("NaN was stored")
	}
}
