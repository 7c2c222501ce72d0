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

// TestModelBuildStopsWhenCanceled: a reasoning whose context ends while it
// reads the store's cells into the rule model stops within a stride of
// cells (not after reading the whole store) and is the budget's
// stop, as a deadline would be.
func TestModelBuildStopsWhenCanceled(t *testing.T) {
	const n = 20_000
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
	snap, _ = w.store.Snapshot()
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
