package datalog

import "testing"

func init() {
	curCheck = true // every evaluation the tests run checks its table comes back clean
}

// TestCurTableCheck: a table given back with a predicate still marked is
// refused while curCheck holds, so that the check every evaluation of the
// package's tests makes can fail.
func TestCurTableCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table []int
		bad   bool
	}{
		{"clean", []int{-1, -1, -1}, false},
		{"empty", nil, false},
		{"marked", []int{-1, 0, -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := recover() != nil; got != tc.bad {
					t.Fatalf("refused %v, want %v", got, tc.bad)
				}
			}()
			returnCur(tc.table)
		})
	}
}

// TestCurTableBorrow: a table borrowed after others were given back is -1
// throughout at any length, shorter or longer than before.
func TestCurTableBorrow(t *testing.T) {
	for _, n := range []int{3, 1, 700, 5, 2000} {
		c := borrowCur(n)
		if len(c) != n {
			t.Fatalf("borrowCur(%d) has %d entries", n, len(c))
		}
		for i, x := range c {
			if x != -1 {
				t.Fatalf("borrowCur(%d)[%d] = %d", n, i, x)
			}
		}
		returnCur(c)
	}
}
