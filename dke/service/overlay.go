// The run's overlay: the claims.Store a run or a module body writes to.
// Its commits stay in memory, over the store's snapshot at the run's
// start; the service writes their net change as one lorestore commit
// when the run ends (DL-0239).

package service

import (
	"slices"
	"sort"
	"strconv"

	"github.com/deloreis/deloreis/dke/claims"
)

// runStore is a claims.Store over a fixed base snapshot. Each Commit
// makes a new in-memory version, as claims.Mem does: every touched cell
// keeps its claim lists by version, so a snapshot is a version number and
// a commit costs what it touches.
type runStore struct {
	base    claims.Snapshot
	version int
	clocks  []int64 // the clock after each version; clocks[0] is the base's
	cells   map[claims.Cell][]layer
	kinds   map[string]map[claims.Cell]bool // every cell a kind was touched at

	// adds and removes are the net change against base: a claim added and
	// then removed by the run is in neither.
	adds, removes netSet
}

// netSet is a list of claims in the order they joined it, indexed by
// identity so that taking one out costs what its cell holds, not the run.
type netSet struct {
	list []claims.Claim
	gone []bool
	at   map[claimKey][]int
}

// claimKey is a claim's identity less its value, which sameClaim adds.
type claimKey struct {
	cell   claims.Cell
	at     int64
	source string
}

func keyOf(c claims.Claim) claimKey { return claimKey{c.Cell, c.At, c.Source} }

func (n *netSet) add(c claims.Claim) {
	if n.at == nil {
		n.at = map[claimKey][]int{}
	}
	k := keyOf(c)
	n.at[k] = append(n.at[k], len(n.list))
	n.list = append(n.list, c)
	n.gone = append(n.gone, false)
}

// take removes c and reports whether it was there.
func (n *netSet) take(c claims.Claim) bool {
	k := keyOf(c)
	for j, i := range n.at[k] {
		if sameClaim(n.list[i], c) {
			n.gone[i] = true
			n.at[k] = slices.Delete(n.at[k], j, j+1)
			return true
		}
	}
	return false
}

// claims returns the claims still in the set, in order.
func (n *netSet) claims() []claims.Claim {
	var out []claims.Claim
	for i, c := range n.list {
		if !n.gone[i] {
			out = append(out, c)
		}
	}
	return out
}

// layer is a touched cell's claims from a version on.
type layer struct {
	version int
	claims  []claims.Claim
}

func newRunStore(base claims.Snapshot) *runStore {
	return &runStore{base: base, clocks: []int64{base.Clock()}, cells: map[claims.Cell][]layer{}, kinds: map[string]map[claims.Cell]bool{}}
}

func runVersion(v int) string { return "run:" + strconv.Itoa(v) }

// sameClaim is the identity a remove matches by, claims.Mem's.
func sameClaim(a, b claims.Claim) bool {
	return a.Cell == b.Cell && a.At == b.At && a.Source == b.Source && a.Value.Equal(b.Value)
}

// claimBefore orders a cell's claims oldest first, as claims.Mem does.
func claimBefore(a, b claims.Claim) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Source < b.Source
}

// Snapshot implements claims.Store.
func (rs *runStore) Snapshot() (claims.Snapshot, error) {
	return &runSnap{rs: rs, v: rs.version}, nil
}

// Commit implements claims.Store: it applies the set to a new in-memory
// version; nothing reaches the lorestore.
func (rs *runStore) Commit(set claims.ChangeSet) (string, error) {
	if set.Base != runVersion(rs.version) {
		return "", claims.ErrConflict
	}
	cur := &runSnap{rs: rs, v: rs.version}
	next := map[claims.Cell][]claims.Claim{}
	get := func(c claims.Cell) []claims.Claim {
		if cl, ok := next[c]; ok {
			return cl
		}
		return cur.Claims(c)
	}
	for _, r := range set.Removes {
		old := get(r.Cell)
		kept := old[:0]
		for _, c := range old {
			if sameClaim(c, r) {
				rs.netRemove(c)
			} else {
				kept = append(kept, c)
			}
		}
		next[r.Cell] = kept
	}
	for _, a := range set.Adds {
		cl := get(a.Cell)
		i := sort.Search(len(cl), func(i int) bool { return claimBefore(a, cl[i]) })
		next[a.Cell] = slices.Insert(cl, i, a)
		rs.netAdd(a)
	}
	rs.version++
	for c, cl := range next {
		rs.cells[c] = append(rs.cells[c], layer{version: rs.version, claims: cl})
		if rs.kinds[c.Kind] == nil {
			rs.kinds[c.Kind] = map[claims.Cell]bool{}
		}
		rs.kinds[c.Kind][c] = true
	}
	rs.clocks = append(rs.clocks, max(set.Clock, rs.clocks[len(rs.clocks)-1]))
	return runVersion(rs.version), nil
}

// netRemove records that the run removed c: a claim the run itself added
// leaves the net adds, any other joins the net removes.
func (rs *runStore) netRemove(c claims.Claim) {
	if !rs.adds.take(c) {
		rs.removes.add(c)
	}
}

// netAdd records that the run added c, cancelling a remove of the same.
func (rs *runStore) netAdd(c claims.Claim) {
	if !rs.removes.take(c) {
		rs.adds.add(c)
	}
}

// changes is the run's net change set and its clock; Base is left for
// the committer.
func (rs *runStore) changes() claims.ChangeSet {
	return claims.ChangeSet{Clock: rs.clocks[rs.version], Adds: rs.adds.claims(), Removes: rs.removes.claims()}
}

// runSnap is the overlay at version v.
type runSnap struct {
	rs *runStore
	v  int
}

func (s *runSnap) Clock() int64    { return s.rs.clocks[s.v] }
func (s *runSnap) Version() string { return runVersion(s.v) }

// touched returns the claims of a cell the run wrote at or before v.
func (s *runSnap) touched(c claims.Cell) ([]claims.Claim, bool) {
	h := s.rs.cells[c]
	i := sort.Search(len(h), func(i int) bool { return h[i].version > s.v })
	if i == 0 {
		return nil, false
	}
	return h[i-1].claims, true
}

func (s *runSnap) Claims(c claims.Cell) []claims.Claim {
	if cl, ok := s.touched(c); ok {
		return slices.Clone(cl)
	}
	return s.rs.base.Claims(c)
}

func (s *runSnap) Cells(kind string) []claims.Cell {
	base := s.rs.base.Cells(kind)
	out := make([]claims.Cell, 0, len(base)+len(s.rs.kinds[kind]))
	for _, c := range base {
		if _, ok := s.touched(c); !ok {
			out = append(out, c)
		}
	}
	for c := range s.rs.kinds[kind] {
		if cl, ok := s.touched(c); ok && len(cl) > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

func (s *runSnap) Kinds() []string {
	var out []string
	for _, k := range s.rs.base.Kinds() {
		if s.rs.kinds[k] == nil || len(s.Cells(k)) > 0 {
			out = append(out, k)
		}
	}
	for k := range s.rs.kinds {
		if !slices.Contains(out, k) && len(s.Cells(k)) > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// failStore is a store that cannot be read: a run over it fails at once.
type failStore struct{ err error }

func (f failStore) Snapshot() (claims.Snapshot, error)      { return nil, f.err }
func (f failStore) Commit(claims.ChangeSet) (string, error) { return "", f.err }
