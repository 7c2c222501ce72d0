package world

import (
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// BenchmarkPvecStageChain100k stages facts one by one, each over the world
// the last one made (a session's chain of staged adds), on the compiled
// 100,000-fact world: its B/op is the garbage of one staged add, which the
// persistent vectors' appends must not make grow with the world.
func BenchmarkPvecStageChain100k(b *testing.B) {
	base := compiled(b)
	for _, sf := range stagedFacts[:1] {
		b.Run(sf.name, func(b *testing.B) {
			b.ReportAllocs()
			w := base
			for i := range b.N {
				nw, err := w.Stage([]objects.Object{sf.fact(i)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				w = nw
			}
		})
	}
}
