// The storage interface (Snapshot, ChangeSet, Store) and Mem, the
// in-memory Store.

package claims

import (
	"errors"
	"sort"
	"sync"
)

// Snapshot is a read-only view of a store at one version.
type Snapshot interface {
	// Claims returns every claim at the cell, oldest first.
	Claims(c Cell) []Claim
	// Cells returns the cells of a kind that hold at least one claim,
	// ordered (Cell.Less).
	Cells(kind string) []Cell
	// Kinds returns the kinds that hold at least one claim, sorted.
	Kinds() []string
	// Clock is the last logical instant recorded; 0 for a new store.
	Clock() int64
}

// ChangeSet is what a Tx changed: the claims to add and the claims to
// remove, and the clock after them. Base is the clock of the snapshot the
// changes were made against, for the store's compare-and-swap.
type ChangeSet struct {
	Base    int64
	Clock   int64
	Adds    []Claim
	Removes []Claim
}

// Empty reports whether the change set changes nothing.
func (cs ChangeSet) Empty() bool { return len(cs.Adds) == 0 && len(cs.Removes) == 0 }

// ErrConflict is returned by Commit when the store moved since the
// snapshot the changes were made against.
var ErrConflict = errors.New("claims: the store changed since the snapshot (conflict)")

// Store is where claims live. The DKE service binds it to the lorestore
// (dke/<store_id>/); Mem keeps it in memory.
type Store interface {
	// Snapshot returns the current version.
	Snapshot() (Snapshot, error)
	// Commit applies a change set atomically, or returns ErrConflict when
	// the store's clock is no longer cs.Base.
	Commit(cs ChangeSet) error
}

// Mem is an in-memory Store. Each commit makes a new version; snapshots
// taken earlier keep seeing theirs.
type Mem struct {
	mu  sync.Mutex
	cur *memSnap
}

// NewMem returns an empty in-memory store.
func NewMem() *Mem { return &Mem{cur: &memSnap{cells: map[Cell][]Claim{}}} }

// Snapshot implements Store.
func (m *Mem) Snapshot() (Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur, nil
}

// Commit implements Store: the new version copies the map and the slices
// of the cells it touches, never the others.
func (m *Mem) Commit(cs ChangeSet) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cs.Base != m.cur.clock {
		return ErrConflict
	}
	next := &memSnap{cells: make(map[Cell][]Claim, len(m.cur.cells)), clock: m.cur.clock}
	for c, cl := range m.cur.cells {
		next.cells[c] = cl
	}
	for _, r := range cs.Removes {
		old := next.cells[r.Cell]
		kept := make([]Claim, 0, len(old))
		for _, c := range old {
			if !(c.At == r.At && c.Source == r.Source && c.Value.Equal(r.Value)) {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			delete(next.cells, r.Cell)
		} else {
			next.cells[r.Cell] = kept
		}
	}
	for _, a := range cs.Adds {
		old := next.cells[a.Cell]
		cl := make([]Claim, len(old), len(old)+1)
		copy(cl, old)
		next.cells[a.Cell] = insertSorted(cl, a)
	}
	if cs.Clock > next.clock {
		next.clock = cs.Clock
	}
	m.cur = next
	return nil
}

// Len returns the number of claims in the current version.
func (m *Mem) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, cl := range m.cur.cells {
		n += len(cl)
	}
	return n
}

func insertSorted(cl []Claim, c Claim) []Claim {
	i := sort.Search(len(cl), func(i int) bool { return before(c, cl[i]) })
	cl = append(cl, Claim{})
	copy(cl[i+1:], cl[i:])
	cl[i] = c
	return cl
}

type memSnap struct {
	cells map[Cell][]Claim
	clock int64
}

func (s *memSnap) Claims(c Cell) []Claim { return append([]Claim(nil), s.cells[c]...) }
func (s *memSnap) Clock() int64          { return s.clock }

func (s *memSnap) Cells(kind string) []Cell {
	var out []Cell
	for c := range s.cells {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

func (s *memSnap) Kinds() []string {
	seen := map[string]bool{}
	var out []string
	for c := range s.cells {
		if !seen[c.Kind] {
			seen[c.Kind] = true
			out = append(out, c.Kind)
		}
	}
	sort.Strings(out)
	return out
}
