package objects

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// TestDecodeInterns decodes facts that share keys, entities and a
// decision set, and checks that the repeated members come back as one
// string (one set) while the free text does not, that the values are
// unchanged, and that appending to one object's shared set leaves the
// others as they were.
func TestDecodeInterns(t *testing.T) {
	prov := Cited(CitedProvisional, "d-2", "d-1")
	var got []*Fact
	for i := range 4 {
		f := &Fact{Entity: "e-1", Key: "k", Value: fmt.Sprintf("v%d", i%2), Provenance: prov}
		o, err := Decode(mustCanonical(t, f))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.(*Fact))
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	for _, tc := range []struct {
		name  string
		a, b  string
		share bool
	}{
		{"entity", got[0].Entity, got[3].Entity, true},
		{"key", got[0].Key, got[3].Key, true},
		{"decision", got[0].Provenance.Decisions[0], got[2].Provenance.Decisions[0], true},
		{"free text", got[0].Value, got[2].Value, false},
	} {
		if tc.a != tc.b || same(tc.a, tc.b) != tc.share {
			t.Errorf("%s: %q and %q shared %v, want %v", tc.name, tc.a, tc.b, same(tc.a, tc.b), tc.share)
		}
	}
	if &got[0].Provenance.Decisions[0] != &got[1].Provenance.Decisions[0] {
		t.Error("the decision set is not shared")
	}
	want := []string{"d-1", "d-2"}
	for _, f := range got {
		if fmt.Sprint(f.Provenance.Decisions) != fmt.Sprint(want) {
			t.Fatalf("decisions %v, want %v", f.Provenance.Decisions, want)
		}
	}
	grown := append(got[0].Provenance.Decisions, "d-3")
	grown[0] = "x"
	if got[1].Provenance.Decisions[0] != "d-1" {
		t.Fatal("an append to one object's decisions changed another's")
	}
}

// TestInternConcurrent interns from many goroutines at once (run with
// -race): every result equals its input.
func TestInternConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5000 {
				s := fmt.Sprintf("s-%d", (i*7+g)%3000)
				if got := intern([]byte(s)); got != s {
					t.Errorf("intern(%q) = %q", s, got)
					return
				}
				set := []string{s, s + "x"}
				if got := internSet(set); len(got) != 2 || got[0] != s || got[1] != s+"x" || cap(got) != 2 {
					t.Errorf("internSet(%q) = %q (cap %d)", set, got, cap(got))
					return
				}
			}
		})
	}
	wg.Wait()
}

func mustCanonical(t *testing.T, o Object) []byte {
	t.Helper()
	b, err := Canonical(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
