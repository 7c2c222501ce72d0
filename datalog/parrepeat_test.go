package datalog

import "testing"

// TestRepeatDropsOnlyRepeats holds a worker's set of its task's head
// tuples (repeat): a tuple already entered is a repeat, a different one
// is not even when its hash is the same, the set keeps every tuple across
// its growths, and after resetSeen, even of a task stopped midway, a new
// task starts empty.
func TestRepeatDropsOnlyRepeats(t *testing.T) {
	var e evaluator
	var o parOut
	enter := func(head []uint32, h uint64) bool {
		if e.repeat(&o, head, h) {
			return true
		}
		o.tup = append(o.tup, head...)
		o.tags = append(o.tags, uint32(h>>32))
		return false
	}
	const same = uint64(0xfeedface)<<32 | 7 // one hash for every tuple below
	steps := []struct {
		head   []uint32
		h      uint64
		repeat bool
	}{
		{[]uint32{1, 2}, same, false},
		{[]uint32{2, 1}, same, false},
		{[]uint32{1, 2}, same, true},
		{[]uint32{1, 3}, same, false},
		{[]uint32{2, 1}, same, true},
		{[]uint32{1, 2}, hashVals([]uint32{1, 2}), false}, // another tag: not found, as the merge would not find it
	}
	for i, s := range steps {
		if got := enter(s.head, s.h); got != s.repeat {
			t.Fatalf("step %d, %v: repeat %v, want %v", i, s.head, got, s.repeat)
		}
	}

	// Many tuples, each twice: the set grows past parSeenMin several
	// times and still finds every one.
	const n = 20 * parSeenMin
	e.seenN = len(o.tags)
	e.resetSeen()
	o.reset(0)
	for round := range 2 {
		for i := range uint32(n) {
			head := []uint32{i, i ^ 0x55}
			if got := enter(head, hashVals(head)); got != (round == 1) {
				t.Fatalf("round %d, tuple %d: repeat %v", round, i, got)
			}
		}
	}
	if len(o.tags) != n {
		t.Fatalf("%d tuples entered, want %d", len(o.tags), n)
	}
	grown := len(e.seen)
	if grown < 2*n {
		t.Fatalf("set of %d slots for %d tuples", grown, n)
	}

	// A task stopped midway (a budget's stop) does not record its count:
	// the reset still clears every slot, and sizes the set by the count
	// it has, that of the small task before.
	e.resetSeen()
	if len(e.seen) >= grown {
		t.Fatalf("after a small task the set keeps %d slots", len(e.seen))
	}
	for i, v := range e.seen[:cap(e.seen)] {
		if v != 0 {
			t.Fatalf("slot %d of the reset set is %d", i, v)
		}
	}

	// The next task starts empty.
	o.reset(0)
	head := []uint32{3, 3 ^ 0x55}
	if enter(head, hashVals(head)) {
		t.Fatal("a tuple of the last task is a repeat in the next")
	}
	if enter(head, hashVals(head)) != true {
		t.Fatal("a tuple entered is not a repeat")
	}
}
