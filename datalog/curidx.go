// This file holds the pool of curIdx scratch tables. An evaluation marks,
// by predicate id, the predicates of the stratum it is evaluating (their
// index among the stratum's relations, -1 for every other), and unmarks
// them when the stratum ends. Making the table afresh for each evaluation
// cost a pass over every predicate: staging one fact into a workspace of
// 100,000 predicates allocated and filled 800 kB for a stratum of one.

package datalog

import (
	"fmt"
	"sync"
)

// curPool holds tables that are -1 throughout.
var curPool sync.Pool

// curCheck makes returnCur verify that a table comes back -1 throughout
// (the package's tests set it: every evaluation they run checks it).
var curCheck bool

// borrowCur returns a table of at least n entries, -1 throughout, for one
// evaluation; returnCur gives it back.
func borrowCur(n int) []int {
	var c []int
	if s, ok := curPool.Get().(*[]int); ok {
		c = *s
	}
	for len(c) < n {
		c = append(c, -1) // grows by doubling: a new predicate rarely costs a copy
	}
	return c[:n]
}

// returnCur gives back a table borrowCur lent, which the evaluation left
// -1 throughout (evalStratum and maint.release unmark their strata as
// they end). An evaluation a budget stops gives none back. Only the
// entries below len(c) are -1: borrowCur appends past them.
func returnCur(c []int) {
	if curCheck {
		for pred, i := range c {
			if i != -1 {
				panic(fmt.Sprintf("datalog: predicate %d still marked %d after an evaluation", pred, i))
			}
		}
	}
	curPool.Put(&c)
}
