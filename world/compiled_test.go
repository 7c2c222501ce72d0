package world

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/deloreis/deloreis/datalog"
)

// TestCompiledDeterministic: two compiles of one input write the same
// snapshot, byte for byte (a compile's file is the same whoever writes it).
func TestCompiledDeterministic(t *testing.T) {
	written := 0
	for seed := range uint64(40) {
		objs := randomWorld(rand.New(rand.NewPCG(seed, 4)))
		var a, b bytes.Buffer
		wa := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
		wb := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
		ea, eb := wa.WriteCompiled(&a), wb.WriteCompiled(&b)
		if ea != nil || eb != nil {
			if ea == nil || eb == nil || !errors.Is(ea, datalog.ErrNoSnapshot) {
				t.Fatalf("seed %d: %v, %v", seed, ea, eb)
			}
			continue
		}
		written++
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			n := 0
			for n < min(a.Len(), b.Len()) && a.Bytes()[n] == b.Bytes()[n] {
				n++
			}
			t.Fatalf("seed %d: the snapshots differ at byte %d (of %d and %d)", seed, n, a.Len(), b.Len())
		}
	}
	if written < 30 {
		t.Fatalf("only %d of 40 worlds snapshotted", written)
	}
}
