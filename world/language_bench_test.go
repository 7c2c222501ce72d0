// Benchmarks of the expert lane in a staged world.

package world

import (
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// nameWorld is a world of n names (half of them passing the oracle) and
// n/10 words over the river-speech dialect.
func nameWorld(b *testing.B, n int) *World {
	b.Helper()
	syl := []string{"ma", "ri", "wen", "tho", "la", "sel", "no", "e"}
	objs := []objects.Object{riverSpeech("rs"),
		&objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: langProv}}
	for i := range n {
		name := syl[i%8] + syl[(i/8)%8] + syl[(i/64)%8]
		if i%2 == 1 {
			name += "k" // a letter river-speech lacks
		}
		objs = append(objs, &objects.Name{Entity: "mireth", Dialect: "rs", Name: fmt.Sprintf("%s %s", name, syl[i%7]+syl[i%5]), Provenance: objects.Proposed(fmt.Sprint("s", i))})
		if i%10 == 0 {
			objs = append(objs, &objects.Word{Dialect: "rs", Form: fmt.Sprint(name, i), Gloss: "g", Provenance: langProv})
		}
	}
	w, err := Compile(Input{Scope: "camelot", Base: entriesOf(b, objs)})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkStageName stages one name over a world of many, and reads the
// findings: the cost of the oracle and the lexicon checks per staged name.
func BenchmarkStageName(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, read := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/findings=%v", n, read), func(b *testing.B) {
				w := nameWorld(b, n)
				i := 0
				for b.Loop() {
					i++
					nw, err := w.Stage([]objects.Object{&objects.Name{Entity: "mireth", Dialect: "rs", Name: "Tholamir", Provenance: objects.Proposed(fmt.Sprint("b", i))}}, nil)
					if err != nil {
						b.Fatal(err)
					}
					if read {
						_ = nw.Findings()
					}
				}
			})
		}
	}
}
