// Tx: a snapshot plus the changes made through it, with the contract's
// write semantics.

package claims

import "sort"

// Tx is a working view over a snapshot. Reads see its own writes; nothing
// reaches the store until the caller commits Changes().
type Tx struct {
	base    Snapshot
	clock   int64
	touched map[Cell][]Claim // full claim lists of the cells written
	adds    []Claim
	removes []Claim
}

// NewTx starts a Tx over s.
func NewTx(s Snapshot) *Tx {
	return &Tx{base: s, clock: s.Clock(), touched: map[Cell][]Claim{}}
}

// Claims returns every claim at the cell, oldest first.
func (t *Tx) Claims(c Cell) []Claim {
	if cl, ok := t.touched[c]; ok {
		return append([]Claim(nil), cl...)
	}
	return t.base.Claims(c)
}

// Current returns the value in force at the cell: its newest claim.
func (t *Tx) Current(c Cell) (Claim, bool) {
	cl := t.Claims(c)
	if len(cl) == 0 {
		return Claim{}, false
	}
	return cl[len(cl)-1], true
}

// Remember adds the claim v at c from source, unless that source already
// recorded v at c: then it succeeds and adds nothing. It returns the
// number of claims added (0 or 1).
func (t *Tx) Remember(c Cell, v Value, source string) int {
	for _, old := range t.Claims(c) {
		if old.Source == source && old.Value.Equal(v) {
			return 0
		}
	}
	t.add(c, v, source)
	return 1
}

// Update records v at c from source as the new value in force, whatever
// the cell held. It always adds one claim.
func (t *Tx) Update(c Cell, v Value, source string) int {
	t.add(c, v, source)
	return 1
}

// Forget removes every claim at c and returns how many.
func (t *Tx) Forget(c Cell) int {
	cl := t.Claims(c)
	t.removes = append(t.removes, cl...)
	t.touched[c] = nil
	return len(cl)
}

// ForgetBefore removes the claims at c recorded before the instant at,
// never the value in force, and returns how many.
func (t *Tx) ForgetBefore(c Cell, at int64) int {
	cl := t.Claims(c)
	if len(cl) == 0 {
		return 0
	}
	var kept []Claim
	n := 0
	for i, x := range cl {
		if x.At < at && i < len(cl)-1 {
			t.removes = append(t.removes, x)
			n++
			continue
		}
		kept = append(kept, x)
	}
	if n > 0 {
		t.touched[c] = kept
	}
	return n
}

// Cells returns the cells of a kind holding claims, ordered.
func (t *Tx) Cells(kind string) []Cell {
	mine := false
	for c := range t.touched {
		if c.Kind == kind {
			mine = true
			break
		}
	}
	if !mine {
		return t.base.Cells(kind)
	}
	set := map[Cell]bool{}
	for _, c := range t.base.Cells(kind) {
		set[c] = true
	}
	for c, cl := range t.touched {
		if c.Kind == kind {
			set[c] = len(cl) > 0
		}
	}
	out := make([]Cell, 0, len(set))
	for c, ok := range set {
		if ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// Subjects returns the subjects of a kind holding claims, sorted.
func (t *Tx) Subjects(kind string) []string {
	return distinct(t.Cells(kind), func(c Cell) string { return c.Subject })
}

// Attributes returns the attributes used at a kind, sorted.
func (t *Tx) Attributes(kind string) []string {
	return distinct(t.Cells(kind), func(c Cell) string { return c.Attr })
}

func distinct(cells []Cell, f func(Cell) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cells {
		if s := f(c); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Changes returns what the Tx changed. A claim added and removed within
// the Tx appears in neither list.
func (t *Tx) Changes() ChangeSet {
	cs := ChangeSet{Base: t.base.Version(), Clock: t.clock}
	gone := map[int64]bool{}
	for _, r := range t.removes {
		gone[r.At] = true
	}
	added := map[int64]bool{}
	for _, a := range t.adds {
		added[a.At] = true
		if !gone[a.At] {
			cs.Adds = append(cs.Adds, a)
		}
	}
	for _, r := range t.removes {
		if !added[r.At] {
			cs.Removes = append(cs.Removes, r)
		}
	}
	return cs
}

func (t *Tx) add(c Cell, v Value, source string) {
	t.clock++
	cl := Claim{Cell: c, Value: v, Source: source, At: t.clock}
	t.adds = append(t.adds, cl)
	t.touched[c] = insertSorted(t.Claims(c), cl)
}

// Clone returns an independent copy of the Tx: a savepoint to return to.
func (t *Tx) Clone() *Tx {
	c := &Tx{base: t.base, clock: t.clock, touched: make(map[Cell][]Claim, len(t.touched)),
		adds: append([]Claim(nil), t.adds...), removes: append([]Claim(nil), t.removes...)}
	for k, v := range t.touched {
		c.touched[k] = append([]Claim(nil), v...)
	}
	return c
}
