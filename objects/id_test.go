// This file tests object IDs: hex form, strict parsing and text marshaling.

package objects

import (
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	good := "0123456789abcdef" + strings.Repeat("ab", 24)
	id, err := ParseID(good)
	if err != nil {
		t.Fatalf("ParseID(%q): %v", good, err)
	}
	if id.String() != good {
		t.Errorf("String() = %s, want %s", id, good)
	}
	if id[0] != 0x01 || id[7] != 0xef {
		t.Errorf("bytes = % x", id[:8])
	}
	bad := []string{
		"",
		good[:63],
		good + "0",
		strings.ToUpper(good),
		"0x" + good[2:],
		" " + good[1:],
		good[:63] + "g",
		strings.Repeat("é", 32),
	}
	for _, s := range bad {
		if _, err := ParseID(s); err == nil {
			t.Errorf("ParseID(%q) succeeded", s)
		}
		var id ID
		if err := id.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("UnmarshalText(%q) succeeded", s)
		}
	}
}

func TestIDText(t *testing.T) {
	id := hexID(0x5a)
	text, err := id.MarshalText()
	if err != nil || string(text) != strings.Repeat("5a", 32) {
		t.Fatalf("MarshalText = %s, %v", text, err)
	}
	var back ID
	if err := back.UnmarshalText(text); err != nil || back != id {
		t.Errorf("UnmarshalText = %s, %v", back, err)
	}
	if !(ID{}).IsZero() || id.IsZero() {
		t.Error("IsZero wrong")
	}
	m := map[ID]int{id: 1}
	if m[mustID(t, id.String())] != 1 {
		t.Error("ID is not usable as a map key")
	}
}

func TestSetNormalization(t *testing.T) {
	a := &Fact{Entity: "e", Key: "k", Value: "v", Provenance: Cited(CitedProvisional, "b", "a", "a")}
	b := &Fact{Entity: "e", Key: "k", Value: "v", Provenance: Cited(CitedProvisional, "a", "b")}
	ida, erra := a.ID()
	idb, errb := b.ID()
	if erra != nil || errb != nil || ida != idb {
		t.Errorf("IDs differ: %s %v, %s %v", ida, erra, idb, errb)
	}
	if got := a.Provenance.Decisions; got[0] != "b" || len(got) != 3 {
		t.Errorf("encoding modified the caller's set: %v", got)
	}
	c := &Fact{Entity: "e", Key: "k", Value: "v", Provenance: Cited(CitedRatified, "a", "b")}
	if idc, _ := c.ID(); idc == ida {
		t.Error("state does not change the ID")
	}
	r1 := &Ratify{Decision: "d", Claims: []ID{hexID(3), hexID(1), hexID(3), hexID(2)}}
	r2 := &Ratify{Decision: "d", Claims: []ID{hexID(1), hexID(2), hexID(3)}}
	id1, _ := r1.ID()
	id2, _ := r2.ID()
	if id1 != id2 {
		t.Error("ratify claims are not a set")
	}
	if r1.Claims[0] != hexID(3) {
		t.Error("encoding modified the caller's claims")
	}
	o, err := Decode([]byte(`{"type":"ratify","decision":"d","claims":["` + hexID(3).String() + `","` +
		hexID(1).String() + `","` + hexID(3).String() + `"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.(*Ratify).Claims; len(got) != 2 || got[0] != hexID(1) {
		t.Errorf("decoded claims not normalized: %v", got)
	}
}
