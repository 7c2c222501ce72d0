package world

import (
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// BenchmarkAdvance10 advances the compiled 100,000-fact world by a commit
// of ten facts (one of them feeding the recursive lineage): the world of
// the next commit, derived; BenchmarkAdvanceSettle settles a staged layer
// of ten facts into its commit's world. Compare BenchmarkCompile100k.
func BenchmarkAdvance10(b *testing.B) {
	w := compiled(b)
	timeEach(b, func(i int, timed func(func() error)) {
		add := entriesOf(b, tenFacts(i))
		timed(func() error {
			nw, incremental, err := w.Advance(add, nil)
			if err == nil && (!incremental || nw.ix.entries.n != w.ix.entries.n+10) {
				err = fmt.Errorf("advanced incrementally %v, %d entries", incremental, nw.ix.entries.n)
			}
			return err
		})
	})
}

func BenchmarkAdvanceSettle10(b *testing.B) {
	w := compiled(b)
	timeEach(b, func(i int, timed func(func() error)) {
		sw, err := w.Stage(tenFacts(i), nil)
		if err != nil {
			b.Fatal(err)
		}
		timed(func() error {
			if _, ok := sw.Settle(); !ok {
				return fmt.Errorf("did not settle")
			}
			return nil
		})
	})
}

func tenFacts(i int) []objects.Object {
	out := make([]objects.Object, 10)
	for k := range out {
		key := "home"
		if k == 0 {
			key = "mentor"
		}
		out[k] = &objects.Fact{Entity: fmt.Sprintf("p%d", (i*10+k)%2000), Key: key, Value: fmt.Sprintf("p%d", (i*7+k)%2000), Provenance: objects.Proposed("bench")}
	}
	return out
}
