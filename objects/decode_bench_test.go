// This file holds the decode benchmarks over the shapes that dominate a
// store's scope read (bench/scale's world): facts and persons with proposed
// provenance, and facts citing decisions.

package objects

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchKeys are the fact keys of bench/scale's world.
var benchKeys = [...]string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}

// benchFacts returns n canonical facts like bench/scale's: person ids,
// ten keys, short values; every fourth cites one or two decisions. They
// come shuffled, as a store lists them by id, not by entity.
func benchFacts(tb testing.TB, n int) [][]byte {
	tb.Helper()
	data := make([][]byte, n)
	for i := range data {
		p := i / 9
		f := &Fact{Entity: fmt.Sprintf("p-%d", p), Key: benchKeys[i%len(benchKeys)],
			Value: fmt.Sprintf("p-%d", (p*7+i)%(n/9+1)), Provenance: Proposed("bench-scale")}
		if i%4 == 3 {
			f.Provenance = Cited(CitedProvisional, "d-1", fmt.Sprintf("d-%d", 2+i%3))
		}
		data[i] = mustCanonical(tb, f)
	}
	r := rand.New(rand.NewPCG(13, 1))
	r.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
	return data
}

// benchEntities returns n canonical persons like bench/scale's.
func benchEntities(tb testing.TB, n int) [][]byte {
	tb.Helper()
	data := make([][]byte, n)
	for i := range data {
		e := &Entity{Kind: KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: fmt.Sprintf("Person %d", i),
			Provenance: Proposed("bench-scale")}
		if i%4 == 3 {
			e.Provenance = Cited(CitedRatified, "d-1")
		}
		data[i] = mustCanonical(tb, e)
	}
	return data
}

// benchDecode decodes each of data in turn, once per iteration.
func benchDecode(b *testing.B, data [][]byte) {
	n := 0
	for _, d := range data {
		n += len(d)
	}
	b.SetBytes(int64(n / len(data)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := Decode(data[i%len(data)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkDecodeFact(b *testing.B)   { benchDecode(b, benchFacts(b, 1<<16)) }
func BenchmarkDecodeEntity(b *testing.B) { benchDecode(b, benchEntities(b, 4096)) }
