package world

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestNameSetMatchesMap asks a nameSet, in batches and one by one,
// what a map of the same names answers.
func TestNameSetMatchesMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int // names in the set
		queries int
	}{
		{"empty", 0, 50},
		{"one", 1, 50},
		{"hundred", 100, 1000},
		{"many", 20000, 50000},
		{"on every core", 200000, 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), 7))
			in := map[string]bool{}
			var names []string
			for range tc.n {
				s := fmt.Sprintf("person-%d", r.IntN(4*tc.n+1))
				in[s] = true
				names = append(names, s, s) // each given twice: the set holds it once
			}
			s := newNameSet(names)
			var qs []string
			for range tc.queries {
				qs = append(qs, fmt.Sprintf("person-%d", r.IntN(8*tc.n+2)))
			}
			qs = append(qs, "", "p", "person-")
			out := make([]bool, nameBatch)
			for lo := 0; lo < len(qs); lo += nameBatch {
				b := qs[lo:min(len(qs), lo+nameBatch)]
				s.hasEach(b, out[:len(b)])
				for i, q := range b {
					if out[i] != in[q] {
						t.Fatalf("hasEach(%q) = %v, want %v", q, out[i], in[q])
					}
					if got := s.has(q, maphash.String(s.seed, q)); got != in[q] {
						t.Fatalf("has(%q) = %v, want %v", q, got, in[q])
					}
				}
			}
		})
	}
}

// TestNameSetTagOfAnother puts a name where another's hash and tag lead:
// a query whose tag matches a different name must probe on.
func TestNameSetTagOfAnother(t *testing.T) {
	s := newNameSet(nil)
	hb := maphash.String(s.seed, "bravo")
	hx := maphash.String(s.seed, "bravx")
	s.file("alfa", hb, 0)                        // alfa under bravo's tag, in bravo's home slot
	s.file("bravx", hb, 1)                       // bravx likewise: same tag, same length as bravo
	s.file("bravo", hb, 1)                       // bravo after them
	s.file("bravx", hx, s.slots[hx&s.mask].meta) // and where its own hash leads
	out := make([]bool, 3)
	s.hasEach([]string{"bravo", "charlie", "bravo"}, out)
	if !out[0] || out[1] || !out[2] {
		t.Fatalf("hasEach = %v, want [true false true]", out)
	}
	s.hasEach([]string{"alfa", "bravx"}, out[:2])
	if out[0] || !out[1] {
		t.Fatalf("hasEach(alfa, bravx) = %v, want [false true]: alfa is held only away from its hash's slots", out[:2])
	}
}
