package datalog

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInsertFlatStopsWhereSequentialGrows holds the parallel insert of one
// batch (insertFlat) to the sequential inserts' growth point: it keeps
// exactly the new rows the sequential inserts add before the table first
// grows, whether the table reached its four fifths or one page its fifteen
// sixteenths, and leaves the hash as they do. Keeping one row fewer gives
// the same bytes (the row is added alone after), so only the count of rows
// kept tells a threshold moved by one.
func TestInsertFlatStopsWhereSequentialGrows(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 528))
	byTable, byPage, noGrowth := 0, 0, 0
	for c := range 120 {
		pre := 3000 + rng.IntN(40000)
		ref, par := newRelation(0, 2, 1), newRelation(0, 2, 1)
		for i := range pre {
			tup := []uint32{uint32(i), 1}
			ref.insert(tup)
			par.insert(tup)
		}
		// The batch: mostly new tuples, some already in the relation, some
		// repeated within the batch.
		var batch [][]uint32
		for range 2048 + rng.IntN(12000) {
			switch r := rng.IntN(10); {
			case r == 0:
				batch = append(batch, []uint32{uint32(rng.IntN(pre)), 1})
			case r == 1 && len(batch) > 0:
				batch = append(batch, batch[rng.IntN(len(batch))])
			default:
				batch = append(batch, []uint32{rng.Uint32(), 2})
			}
		}

		// Sequential: the new row at which the table first grows.
		slots0, fk0, n0 := ref.set.slots(), ref.set.fk, ref.set.n
		want, added := -1, 0
		for _, tup := range batch {
			if _, ok := ref.insert(tup); !ok {
				continue
			}
			if want < 0 && (ref.set.segs == nil || ref.set.slots() != slots0 || ref.set.fk != fk0) {
				want = added
			}
			added++
		}
		switch {
		case want < 0:
			want = added
			noGrowth++
		case (n0+want+1)*5 > 4*slots0:
			byTable++
		default:
			byPage++
		}

		// Parallel: the batch in tasks of 1,000 tuples, on two workers.
		var tasks []parTask
		for lo := 0; lo < len(batch); lo += 1000 {
			var o parOut
			for _, tup := range batch[lo:min(lo+1000, len(batch))] {
				o.tup = append(o.tup, tup...)
				o.tags = append(o.tags, uint32(hashVals(tup)>>32))
			}
			tasks = append(tasks, parTask{out: o})
		}
		e := &evaluator{cur: []*relation{par}, par: &parState{}}
		flats, kept := parMerged.flat.Load(), parMerged.flatKept.Load()
		e.insertPar(0, par, tasks, []*evaluator{{}, {}})
		if parMerged.flat.Load() != flats+1 {
			t.Fatalf("case %d: the batch was not placed as found (insertFlat did not run)", c)
		}
		if got := parMerged.flatKept.Load() - kept; got != int64(want) {
			t.Fatalf("case %d (%d rows, %d new in a batch of %d): the parallel insert kept %d rows, the sequential inserts add %d before the table grows",
				c, pre, added, len(batch), got, want)
		}
		if par.n != ref.n || par.set.n != ref.set.n || par.set.fk != ref.set.fk || par.set.gd != ref.set.gd ||
			!slices.Equal(par.set.cnt, ref.set.cnt) || !slices.EqualFunc(par.set.segs, ref.set.segs, slices.Equal) {
			t.Fatalf("case %d: the parallel insert's hash differs from the sequential one's", c)
		}
	}
	// Both growth points, and batches that fit, were met.
	if byTable == 0 || byPage == 0 || noGrowth == 0 {
		t.Fatalf("growth by the table's fill %d, by a page's %d, none %d: a kind of case was never met", byTable, byPage, noGrowth)
	}
	t.Logf("growth by the table's fill %d, by a page's %d, none %d", byTable, byPage, noGrowth)
}
