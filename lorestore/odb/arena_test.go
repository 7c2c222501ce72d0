package odb

import (
	"bytes"
	"slices"
	"testing"
)

// TestArenaTakes: slices taken from an arena never overlap and cannot
// grow into each other, across block boundaries (a block filled exactly,
// a slice that does not fit what is left, one too large for a block);
// after a reset the same blocks are reused, and nothing more is made.
func TestArenaTakes(t *testing.T) {
	sizes := []uint64{1, arenaMost, arenaBlock - arenaMost - 1, 1, arenaMost, arenaMost + 1, 7, arenaMost}
	for _, n := range []int{1, 20} { // a few blocks, then many
		var seq []uint64
		for range n {
			seq = append(seq, sizes...)
		}
		a := new(Arena)
		var first []*byte // the blocks the first round made
		for round := range 2 {
			got := make([][]byte, len(seq))
			for i, size := range seq {
				b := a.take(size)
				if uint64(len(b)) != size || cap(b) != len(b) {
					t.Fatalf("round %d, take %d of %d bytes: len %d, cap %d", round, i, size, len(b), cap(b))
				}
				for j := range b {
					b[j] = byte(i)
				}
				got[i] = b
			}
			for i, b := range got {
				if !bytes.Equal(b, bytes.Repeat([]byte{byte(i)}, len(b))) {
					t.Fatalf("round %d: take %d was overwritten by a later one", round, i)
				}
			}
			var blocks []*byte
			for _, b := range a.blocks {
				blocks = append(blocks, &b[0])
			}
			if round == 0 {
				first = blocks
			} else if !slices.Equal(blocks, first) {
				t.Fatalf("the second round holds %d blocks, not the first round's %d: a reset arena reuses its blocks", len(blocks), len(first))
			}
			a.Reset()
		}
	}
}
