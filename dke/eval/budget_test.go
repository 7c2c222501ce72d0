package eval

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

// cancelingSnapshot cancels a context when the rule model starts reading
// its cells, and counts the cells read after.
type cancelingSnapshot struct {
	claims.Snapshot
	cancel context.CancelFunc
	after  int
}

func (s *cancelingSnapshot) Cells(kind string) []claims.Cell {
	s.cancel()
	return s.Snapshot.Cells(kind)
}

func (s *cancelingSnapshot) Claims(c claims.Cell) []claims.Claim {
	s.after++
	return s.Snapshot.Claims(c)
}

// qtyWorld is n claims Item.i<k>.qty = k mod 100 under a rule concluding
// Item.*.big of the 2 in 100 above 97.
func qtyWorld(t *testing.T, n int) *world {
	w := newWorld()
	w.do(t, step{compile: "rules", lang: keywords.Eng, src: "@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 97:\n        Item[i].big = True\n"})
	snap, _ := w.store.Snapshot()
	tx := claims.NewTx(snap)
	for k := range n {
		tx.Remember(claims.Cell{Kind: "Item", Subject: "i" + strconv.Itoa(k), Attr: "qty"}, claims.Int(int64(k%100)), "seed")
	}
	if _, err := w.store.Commit(tx.Changes()); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestModelBuildStopsWhenCanceled: a reasoning whose context ends while it
// reads the store's cells into the rule model stops within a stride of
// cells (not after reading the whole store) and is the budget's
// stop, as a deadline would be.
func TestModelBuildStopsWhenCanceled(t *testing.T) {
	const n = 20_000
	w := qtyWorld(t, n)
	snap, _ := w.store.Snapshot()
	ctx, cancel := context.WithCancel(context.Background())
	cs := &cancelingSnapshot{Snapshot: snap, cancel: cancel}
	_, err := ReasonContext(ctx, cs, w.mods, 0)
	be, ok := IsBudget(err)
	if !ok || be.Budget != "" || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the cancellation as a budget's stop", err)
	}
	if cs.after > 2048 {
		t.Errorf("%d of %d cells read after the cancellation", cs.after, n)
	}
}

// TestModelBuildChargesCells: the cells read into a rule model are
// charged to the memory budget at TupleBytes each, though the rule
// derives little: 20,000 cells under a budget of 10,000 tuples are
// refused for memory, under one of 30,000 answered; a run reading the
// rules likewise.
func TestModelBuildChargesCells(t *testing.T) {
	const n = 20_000
	w := qtyWorld(t, n)
	snap, _ := w.store.Snapshot()
	cases := []struct {
		tuples  int64
		refused bool
	}{{10_000, true}, {30_000, false}}
	for _, c := range cases {
		_, err := ReasonContext(context.Background(), snap, w.mods, c.tuples*TupleBytes)
		be, isBudget := IsBudget(err)
		if refused := isBudget && be.Budget == "memory"; refused != c.refused || !isBudget && err != nil {
			t.Errorf("reasoning under %d tuples: err %v, want refused %v", c.tuples, err, c.refused)
		}
		f := benchProgram(t, w, "print(current(Item.i98.big).found)\n")
		r := Run(f, Options{Store: w.store, Modules: w.mods, Memory: c.tuples * TupleBytes})
		if be, ok := IsBudget(r.Err); ok != c.refused || ok && be.Budget != "memory" || !ok && !r.OK() {
			t.Errorf("run under %d tuples: %v, want refused %v", c.tuples, r.Err, c.refused)
		}
	}
}
